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
