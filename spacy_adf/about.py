__title__ = "spacy-adf"
__version__ = "0.1.0"
