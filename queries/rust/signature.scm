; Declarations for signature previews (Rust).
;
; Captures (read by src/syntax/signature.rs):
;   @declaration  a declaration node
;   @name         its name: how a symbol finds its declaration
;   @body         where the preview stops: the declaration's text before it
;                 is the signature (no @body: the whole declaration)
;   @leading      doc comments and attributes above @item: part of the
;                 symbol's range (as rust-analyzer reports it), not of the
;                 preview
;   @item         the declaration @leading belongs to
;   @comment      a comment, left out of previews
; When several patterns match one name, the first pattern wins.
;
; Like every pattern of outline.scm, a pattern here is rooted at a node
; that can hold declarations (the file, a module, an impl or trait body, a
; struct or enum: see `[outline]` in language.toml) or at a child of
; one: the query runs only there, never inside function bodies, types or
; expressions. (@comment patterns also run over a declaration's own text.)

(line_comment) @comment
(block_comment) @comment

; ---- doc comments and attributes ----
(source_file
  [(line_comment outer: (_)) (block_comment outer: (_)) (attribute_item)]+ @leading
  .
  [(function_item) (function_signature_item) (macro_definition) (struct_item) (union_item)
   (enum_item) (type_item) (trait_item) (impl_item) (const_item) (static_item) (mod_item)] @item)
(declaration_list
  [(line_comment outer: (_)) (block_comment outer: (_)) (attribute_item)]+ @leading
  .
  [(function_item) (function_signature_item) (macro_definition) (struct_item) (union_item)
   (enum_item) (type_item) (associated_type) (trait_item) (impl_item) (const_item) (static_item)
   (mod_item)] @item)
(field_declaration_list
  [(line_comment outer: (_)) (block_comment outer: (_)) (attribute_item)]+ @leading
  .
  (field_declaration) @item)
(enum_variant_list
  [(line_comment outer: (_)) (block_comment outer: (_)) (attribute_item)]+ @leading
  .
  (enum_variant) @item)

; ---- functions ----
(function_item name: (_) @name body: (_) @body) @declaration
(function_signature_item name: (_) @name) @declaration
(macro_definition name: (_) @name (macro_rule) @body) @declaration

; ---- types ----
(struct_item name: (_) @name body: (field_declaration_list) @body) @declaration
(struct_item name: (_) @name) @declaration
(union_item name: (_) @name body: (_) @body) @declaration
(field_declaration name: (_) @name) @declaration
(enum_item name: (_) @name body: (_) @body) @declaration
(enum_variant name: (_) @name body: (field_declaration_list) @body) @declaration
(enum_variant name: (_) @name) @declaration
(type_item name: (_) @name) @declaration
(associated_type name: (_) @name) @declaration

; ---- traits and impl blocks ----
(trait_item name: (_) @name body: (_) @body) @declaration
(impl_item type: (_) @name body: (_) @body) @declaration

; ---- values and modules ----
(const_item name: (_) @name) @declaration
(static_item name: (_) @name) @declaration
(mod_item name: (_) @name body: (_) @body) @declaration
(mod_item name: (_) @name) @declaration
