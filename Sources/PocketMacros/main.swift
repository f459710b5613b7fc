// Placeholder: the compiler plugin lands with the @Generable issue.
