enum _PocketGrammarPlaceholder {}
