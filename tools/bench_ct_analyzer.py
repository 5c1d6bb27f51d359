#!/usr/bin/env python
"""Why CT search converts to simplified: word segmentation of traditional Chinese against the
gold segmentation of UD Chinese GSD (../shared/data/ud-chinese), three ways:

  jieba-direct      jieba's default (simplified-trained) dictionary on the traditional text
  jieba-direct-hmm  the same with jieba's HMM for unknown words
  opencc+jieba      SEPIA's CT analyzer: OpenCC t2s character conversion (offsets kept), then jieba

The first row, jieba on the treebank's own simplified version of the same sentences, is the\nceiling. Reports word precision/recall/F1 (a word counts when both its boundaries match) and speed.
    .venv/bin/python tools/bench_ct_analyzer.py
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("SEPIA_SHARED_DATA", ROOT.parent / "shared" / "data")) / "ud-chinese"
FILES = ["UD_Chinese-GSD__zh_gsd-ud-dev.conllu", "UD_Chinese-GSD__zh_gsd-ud-test.conllu"]
SIMPLIFIED = ["UD_Chinese-GSDSimp__zh_gsdsimp-ud-dev.conllu", "UD_Chinese-GSDSimp__zh_gsdsimp-ud-test.conllu"]


def gold_sentences(files=FILES):
    for name in files:
        text, words = None, []
        for line in open(DATA / name, encoding="utf-8"):
            line = line.rstrip("\n")
            if line.startswith("# text = "):
                text = line[9:]
            elif line and not line.startswith("#"):
                cols = line.split("\t")
                if cols[0].isdigit():
                    words.append(cols[1])
            elif not line and text is not None:
                if "".join(words) == text.replace(" ", ""):
                    yield text.replace(" ", ""), words
                text, words = None, []


def spans(words):
    out, at = set(), 0
    for w in words:
        out.add((at, at + len(w)))
        at += len(w)
    return out


def main() -> None:
    from sepia.search.chinese import jieba_tokenizer, to_simplified

    jieba = jieba_tokenizer()
    sentences = list(gold_sentences())
    simplified = dict(zip((s for s, _ in sentences), (s for s, _ in gold_sentences(SIMPLIFIED))))
    methods = {
        # the ceiling: jieba on the same sentences as the treebank writes them in simplified
        "(simplified text)": lambda s: list(jieba.cut(simplified[s], HMM=False)),
        "jieba-direct": lambda s: list(jieba.cut(s, HMM=False)),
        "jieba-direct-hmm": lambda s: list(jieba.cut(s, HMM=True)),
        "opencc+jieba": lambda s: list(jieba.cut(to_simplified(s), HMM=False)),
    }
    chars = sum(len(s) for s, _ in sentences)
    print(f"{len(sentences)} sentences, {chars} characters")
    print("method            precision  recall  F1     chars/s")
    for name, cut in methods.items():
        tp = fp = fn = 0
        started = time.perf_counter()
        cuts = [cut(s) for s, _ in sentences]
        seconds = time.perf_counter() - started
        for (_s, gold), got in zip(sentences, cuts):
            g, p = spans(gold), spans(got)
            tp += len(g & p)
            fp += len(p - g)
            fn += len(g - p)
        precision, recall = tp / (tp + fp), tp / (tp + fn)
        f1 = 2 * precision * recall / (precision + recall)
        print(f"{name:<17} {precision:.3f}      {recall:.3f}   {f1:.3f}  {chars / seconds:,.0f}")


if __name__ == "__main__":
    main()
