"""Python references of the targets' fast writers (`pipeline/targets.py`),
token by token: the test oracles they must agree with."""
from spacy_adf.pipeline.targets import NO_MORPH, MorphTarget


def set_morph_reference(target: MorphTarget, doc, tags) -> None:
    """What `MorphTarget.set` writes: each token keeps its other morph
    fields and takes the target's fields from its label."""
    for token, tag in zip(doc, tags):
        feats = {k: v for k, v in token.morph.to_dict().items() if k not in target.fields}
        if tag != NO_MORPH:
            feats.update(part.split("=", 1) for part in tag.split("|"))
        token.set_morph(feats if feats else None)
