"""Polynomial-kernel SVM classification (Kudo & Matsumoto 2003): train with
libsvm, then classify with PKB (baseline), PKI (inverted index, exact) or PKE
(expanded subset weights, approximate by sigma and xi).

Modules, bottom up: ``coefficients`` (the subset weights c_d(r)), ``svm``
(libsvm training, `SupportVectors`, duplicate merging), ``csr`` (input
conversion), ``idsets.pxd`` (nogil sorted-id helpers), ``mining`` (PKE's
subset miner and trie layout), ``classifiers`` (PKB, PKI, PKE and their
factory / loader), ``datrie`` (a double-array trie over PKE's subsets, a
yardstick), ``expansion`` (the explicit subset features phi, interned),
``primal`` (the kernel SVM trained as a linear SVM on phi with liblinear,
straight to PKE's weights: no support vectors, no mining), ``subset_learner``
and ``online`` (averaged passive-aggressive steps over the same subset
features, streamed example by example, memory following the updated
examples: also straight to PKE), ``progress`` (console lines of long
training steps), ``cascade`` and ``tournament`` (pke_dependency's parsers
over flat per-segment feature ids), ``pairwise`` (K classes by
one-against-one voting over K(K-1)/2 binary classifiers) and
``left_to_right`` (pke_tagger's decoder); the C loops call the nogil
decisions declared in ``classifiers.pxd`` and ``pairwise.pxd``."""
from .classifiers import PKB, PKE, PKI, KernelClassifier, load_classifier, make_classifier
from .coefficients import subset_weights
from .csr import as_csr, as_ids
from .expansion import SubsetIndex
from .pairwise import PairwiseClassifier
from .online import train_online
from .primal import PrimalSVM, train_primal
from .svm import SupportVectors, fit_svc, merge_duplicates, to_csr, train_svm

__all__ = ["subset_weights", "SupportVectors", "fit_svc", "train_svm", "merge_duplicates", "to_csr",
           "as_csr", "as_ids", "SubsetIndex", "PrimalSVM", "train_primal", "train_online",
           "KernelClassifier", "PKB", "PKI", "PKE", "make_classifier", "load_classifier",
           "PairwiseClassifier"]
