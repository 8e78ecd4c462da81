"""KV accessors used as a module object through `import ... as` aliases."""
