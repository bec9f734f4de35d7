"""Model files written piece by piece (framed.Chunks): the same bytes as
packing the whole message, and a file that reads back through unwrap."""
import zlib

import numpy
import srsly

from spacy_adf.serialization import framed


def _packed_whole(fmt, version, arrays, meta) -> bytes:
    """The message as one dict through msgpack (what pack wrote before it
    was written in chunks)."""
    packed, crc = {}, 0
    for name in sorted(arrays):
        arr = numpy.ascontiguousarray(arrays[name])
        raw = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
        crc = zlib.crc32(raw, crc)
        packed[name] = {"dtype": arr.dtype.str.lstrip("<>|="), "shape": list(arr.shape), "data": raw}
    return srsly.msgpack_dumps({"format": fmt, "version": version, "meta": meta, "arrays": packed, "crc32": crc})


def test_pack_chunks_are_the_bytes_of_the_whole_message():
    rng = numpy.random.default_rng(0)
    for n in (0, 1, 200, 70_000):  # every msgpack bin header size
        arrays = {"w": rng.random(n).astype(numpy.float32), "k": numpy.arange(n, dtype=numpy.uint64),
                  "c": numpy.arange(n % 7, dtype=numpy.uint16).reshape(-1, 1)}
        meta = {"n_labels": 3, "names": ["a", "b"]}
        chunks = framed.pack_chunks("f", 2, arrays, meta)
        assert chunks.join() == framed.pack("f", 2, arrays, meta) == _packed_whole("f", 2, arrays, meta)


def test_write_wrapped_writes_the_frame_of_wrap(tmp_path):
    arrays = {"w": numpy.arange(1000, dtype=numpy.float32)}
    chunks = framed.pack_chunks("f", 1, arrays, {})
    framed.write_wrapped(tmp_path / "model", "model", chunks)
    data = (tmp_path / "model").read_bytes()
    assert data == framed.wrap("model", chunks) == framed.wrap("model", chunks.join())
    assert bytes(framed.unwrap("model", data)) == chunks.join()
    framed.write_wrapped(tmp_path / "plain", "lexicon", b"abc")
    assert (tmp_path / "plain").read_bytes() == framed.wrap("lexicon", b"abc")
