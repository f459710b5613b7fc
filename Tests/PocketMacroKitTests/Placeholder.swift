// Tests for the macro lexer, parser and generator.
