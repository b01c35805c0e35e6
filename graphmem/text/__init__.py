"""The text pipeline: text → sentences → claims → writes (see ``docs/concepts/text.md``).

- :mod:`graphmem.text.nlp`: sentences and speaker turns (the only module importing spaCy);
- :mod:`graphmem.text.claims`: the claim of a sentence, and reading one sentence (pure);
- :mod:`graphmem.text.reader`: the sentences of one text in order, with their pronouns (pure);
- :mod:`graphmem.text.cleanup`, :mod:`graphmem.text.modality`, :mod:`graphmem.text.names`: a
  sentence cleaned, skipped when it states nothing, and its names and values (pure);
- :mod:`graphmem.text.rules`: the clause rules, in their order (pure);
- :mod:`graphmem.text.dates`: dates in text, resolved against the session's date (pure);
- :mod:`graphmem.text.lexicon`: the word lists the rules read (pure data);
- :mod:`graphmem.text.resolve`: change statements resolved against the subject's facts (pure);
- :mod:`graphmem.text.pipeline`: one write per call through the memory's write path.
"""
