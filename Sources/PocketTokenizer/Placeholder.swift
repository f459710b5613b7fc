enum _PocketTokenizerPlaceholder {}
