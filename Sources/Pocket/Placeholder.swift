enum _PocketPlaceholder {}
