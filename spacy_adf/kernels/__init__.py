"""Polynomial-kernel SVM classification (Kudo & Matsumoto 2003): train with
libsvm (or the primal / on-line subset trainers), then classify with PKB, PKI
or PKE; docs/architecture.md lists the modules."""
from .classifiers import PKB, PKE, PKI, KernelClassifier, load_classifier, make_classifier
from .coefficients import subset_weights
from .csr import as_csr, as_ids
from .expansion import SubsetIndex
from .pairwise import PairwiseClassifier
from .online import train_online
from .primal import PrimalSVM, train_primal
from .svm import SupportVectors, merge_duplicates, train_svm

__all__ = ["subset_weights", "SupportVectors", "train_svm", "merge_duplicates",
           "as_csr", "as_ids", "SubsetIndex", "PrimalSVM", "train_primal", "train_online",
           "KernelClassifier", "PKB", "PKI", "PKE", "make_classifier", "load_classifier",
           "PairwiseClassifier"]
