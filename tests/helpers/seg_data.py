"""Small synthetic segmentation corpora made by the tests themselves."""
import random
from typing import List, Sequence, Tuple

import numpy
import spacy
from spacy.tokens import Doc
from spacy.training import Example

from spacy_adf.features.chars import texts_to_units
from spacy_adf.tokenizers.char import CharTokenizer

WORDS = [
    "中国", "人民", "银行", "北京", "我们", "发展", "经济", "今天", "天气", "很", "好", "的",
    "了", "在", "是", "学生", "老师", "学校", "研究", "生命", "科学", "研究生", "大学",
    "上海", "市场", "开放", "政策", "我", "你", "他", "喜欢", "吃", "苹果", "看", "电影",
    "朋友", "一起", "工作", "时间", "问题", "解决", "方法", "重要", "新", "技术", "公司",
]


def make_sentences(n: int, seed: int = 0, words: List[str] = WORDS) -> List[List[str]]:
    rng = random.Random(seed)
    return [[rng.choice(words) for _ in range(rng.randint(3, 9))] for _ in range(n)]


def char_nlp(lang: str = "zh"):
    nlp = spacy.blank(lang, config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.CharTokenizer.v1"}}})
    assert isinstance(nlp.tokenizer, CharTokenizer)
    return nlp


def seg_examples(nlp, sentences: List[List[str]]) -> List[Example]:
    out = []
    for words in sentences:
        ref = Doc(nlp.vocab, words=words, spaces=[False] * len(words))
        out.append(Example(nlp.make_doc(ref.text), ref))
    return out


# the names of CharFeaturizer's hash columns, in order (chars.pyx `_fill`)
TEMPLATE_NAMES_BASE = (
    ["c[-2]", "c[-1]", "c[0]", "c[1]", "c[2]",
     "c[-2]c[-1]", "c[-1]c[0]", "c[0]c[1]", "c[1]c[2]", "c[-1]c[1]"]
    + [f"same(c[{j}],c[{j + 1}])" for j in range(-2, 2)]
    + [f"same(c[{j}],c[{j + 2}])" for j in range(-3, 2)]
    + ["type[0]", "type[-1]type[0]type[1]",
       "lex_end_len", "lex_begin_len", "lex_inside_len", "lex_end_len|c[0]", "lex_begin_len|c[0]",
       "lex_end_len|lex_begin_len", "type[0]c[-1]", "type[0]c[1]", "lex_inside_len|c[0]"]
)


def template_names(featurizer) -> List[str]:
    names = list(TEMPLATE_NAMES_BASE)
    if featurizer.word_features:
        lengths = range(featurizer.min_word, featurizer.max_word + 1)
        names += [f"lex_word_ending_here[{l}]" for l in lengths]
        names += [f"lex_word_starting_here[{l}]" for l in lengths]
    if featurizer.char_trigrams:
        names += ["c[-2]c[-1]c[0]", "c[-1]c[0]c[1]", "c[0]c[1]c[2]", "c[-2]c[0]", "c[0]c[2]"]
    return names


def text_units(text: str) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """(codes uint32, char position int64 per unit, run bounds) of raw text:
    runs are the maximal non-whitespace stretches."""
    codes, pos, bounds, _ = texts_to_units([text])
    return codes, pos, bounds


def word_lengths_to_flags(lengths: Sequence[int]):
    """(starts, ends) flags of a unit sequence split into words of these lengths."""
    n = int(sum(lengths))
    starts = numpy.zeros(n, bool)
    ends = numpy.zeros(n, bool)
    pos = 0
    for length in lengths:
        if length < 1:
            raise ValueError("word lengths must be positive")
        starts[pos] = True
        pos += length
        ends[pos - 1] = True
    return starts, ends
