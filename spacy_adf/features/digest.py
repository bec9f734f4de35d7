"""Digests of arrays: what the training caches keep of an example's input
instead of a copy. It lives below `models/` so that a model can key the
training samples it prepares (`SequenceCRF.training_signature`)."""
import hashlib

import numpy


def digest(array: numpy.ndarray) -> bytes:
    """A 128-bit BLAKE2b digest of an array's dtype, shape and contents: the
    signature or key the cache keeps instead of a copy of the array (two
    different arrays among a billion share a digest with a chance below
    1e-20)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{array.dtype.str}{array.shape}".encode())
    h.update(numpy.ascontiguousarray(array).data)
    return h.digest()
