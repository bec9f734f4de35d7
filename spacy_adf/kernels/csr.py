"""Input conversion for the kernel classifiers (every form, and
benchmarks/datrie.pyx, so that they accept the same inputs): feature-id sets
and CSR batches as the contiguous int32 / int64 arrays their nogil loops read."""
import numpy
import scipy.sparse

from .svm import binary_csr


def as_ids(feature_ids):
    """int32 ids; values that do not fit int32 become -1 (unseen, ignored)."""
    arr = numpy.asarray(feature_ids).reshape(-1)
    if arr.dtype == numpy.int32:
        return numpy.ascontiguousarray(arr)
    if arr.size and arr.dtype.kind not in "iu":
        if arr.dtype.kind == "b" or not numpy.all(numpy.mod(arr, 1) == 0):
            raise ValueError("feature ids must be integers")
    arr = arr.astype(numpy.int64)
    arr[(arr < 0) | (arr > 2147483647)] = -1
    return arr.astype(numpy.int32)


def as_csr(X):
    """(indptr int64, indices int32) of a scipy CSR matrix or a (indptr, indices) pair."""
    if scipy.sparse.issparse(X):
        X = scipy.sparse.csr_matrix(X)
        if X.nnz and not numpy.all(X.data == 1):
            X = binary_csr(X)  # drops stored zeros; other values are an error
        indptr, indices = X.indptr, X.indices
    else:
        indptr, indices = X
    indptr = numpy.ascontiguousarray(indptr, dtype=numpy.int64)
    indices = as_ids(indices)
    if (indptr.ndim != 1 or indptr.shape[0] < 1 or indptr[0] != 0
            or indptr[indptr.shape[0] - 1] != indices.shape[0]):
        raise ValueError("CSR input: indptr does not match the indices")
    if numpy.any(numpy.diff(indptr) < 0):
        raise ValueError("CSR input: indptr must be non-decreasing")
    return indptr, indices
