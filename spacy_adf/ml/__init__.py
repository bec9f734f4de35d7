"""The thinc Models of spacy-adf's components. Each carries the component's
plain model (its model outside spaCy) in ``attrs[PLAIN_MODEL]``; thinc
never sees the weights, as the component trains and runs that model itself."""

PLAIN_MODEL = "plain_model"
