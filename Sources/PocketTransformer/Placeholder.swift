enum _PocketTransformerPlaceholder {}
