"""Polynomial-kernel SVM classification (Kudo & Matsumoto 2003): train with
libsvm, then classify with PKB (baseline), PKI (inverted index, exact) or PKE
(expanded subset weights, approximate by sigma and xi).

Modules, bottom up: ``coefficients`` (the subset weights c_d(r)), ``svm``
(libsvm training, `SupportVectors`), ``csr`` (input conversion),
``idsets.pxd`` (nogil sorted-id helpers), ``mining`` (PKE's subset miner and
trie layout), ``classifiers`` (PKB, PKI, PKE and their factory / loader),
``datrie`` (a double-array trie over PKE's subsets, a yardstick)."""
from .classifiers import PKB, PKE, PKI, KernelClassifier, load_classifier, make_classifier
from .coefficients import subset_weights
from .csr import as_csr, as_ids
from .svm import SupportVectors, fit_svc, to_csr, train_svm

__all__ = ["subset_weights", "SupportVectors", "fit_svc", "train_svm", "to_csr", "as_csr", "as_ids",
           "KernelClassifier", "PKB", "PKI", "PKE", "make_classifier", "load_classifier"]
