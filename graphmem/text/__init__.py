"""The text pipeline: text → sentences → claims → writes (see ``docs/concepts/text.md``).

- :mod:`graphmem.text.nlp`: sentences and speaker turns (the only module importing spaCy);
- :mod:`graphmem.text.claims`: the sentence rules (pure);
- :mod:`graphmem.text.dates`: dates in text, resolved against the session's date (pure);
- :mod:`graphmem.text.lexicon`: the word lists the rules read (pure data);
- :mod:`graphmem.text.resolve`: change statements resolved against the subject's facts (pure);
- :mod:`graphmem.text.pipeline`: one write per call through the memory's write path.
"""
