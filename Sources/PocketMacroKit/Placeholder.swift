// The macro implementation lives here; see docs/macros.md.
