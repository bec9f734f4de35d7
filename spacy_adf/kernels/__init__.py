"""Polynomial-kernel SVM classification (Kudo & Matsumoto 2003): train with
libsvm, then classify with PKB (baseline), PKI (inverted index, exact) or PKE
(expanded subset weights, approximate by sigma and xi)."""
from .coefficients import subset_weights
from .poly import PKB, PKE, PKI, load_classifier, make_classifier
from .svm import SupportVectors, fit_svc, to_csr, train_svm

__all__ = ["subset_weights", "SupportVectors", "fit_svc", "train_svm", "to_csr",
           "PKB", "PKI", "PKE", "make_classifier", "load_classifier"]
