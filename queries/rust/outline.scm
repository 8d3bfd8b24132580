; The outline of a Rust file (tags-style).
;
; Captures (read by src/syntax/outline.rs):
;   @symbol.<kind>  a declaration; <kind> is the kind in snake_case (LSP's, and
;                   type_alias)
;   @name           its name: the text shown and the position `@line:char`
;   @opaque         a function body (or a constant's value): nothing inside
;                   it is outlined
;   @trait, @negative  an impl block's trait and `!`: impl blocks are named
;                   from them (`impl Trait for Type`, `impl Type`)
; When several patterns match one declaration, the first pattern wins.
;
; A pattern is rooted at a node that can hold declarations (the file,
; a module, an impl or trait body, a struct or enum: see `[outline]` in language.toml) or at a child of one:
; the query runs only there, so it never walks function bodies, types or
; expressions, where most of a file's nodes are. @opaque says the same in
; the query's own terms.
;
; Kinds follow rust-analyzer's document symbols, so the tree-sitter outline
; and the server's agree: a fn with a `self` parameter is a Method, any
; other fn a Function; impl blocks are Object (the position is the self
; type), traits Interface, unions Struct, variants EnumMember, type aliases
; and associated types TypeParameter, statics Constant, `macro_rules!`
; Function.

; ---- bodies: never looked into ----
(function_item body: (_) @opaque)
(closure_expression body: (_) @opaque)
(const_item value: (_) @opaque)
(static_item value: (_) @opaque)

; ---- functions ----
(function_item name: (identifier) @name parameters: (parameters (self_parameter))) @symbol.method
(function_item name: (identifier) @name) @symbol.function
(function_signature_item name: (identifier) @name parameters: (parameters (self_parameter))) @symbol.method
(function_signature_item name: (identifier) @name) @symbol.function
(macro_definition name: (identifier) @name) @symbol.function

; ---- types ----
(struct_item name: (type_identifier) @name) @symbol.struct
(union_item name: (type_identifier) @name) @symbol.struct
(field_declaration_list (field_declaration name: (field_identifier) @name) @symbol.field)
(enum_item name: (type_identifier) @name) @symbol.enum
(enum_variant name: (identifier) @name) @symbol.enum_member
(type_item name: (type_identifier) @name) @symbol.type_alias
(associated_type name: (type_identifier) @name) @symbol.type_parameter

; ---- traits and impl blocks ----
(trait_item name: (type_identifier) @name) @symbol.interface
(impl_item "!" @negative trait: (_) @trait type: (_) @name) @symbol.object
(impl_item trait: (_) @trait type: (_) @name) @symbol.object
(impl_item type: (_) @name) @symbol.object

; ---- values and modules ----
(const_item name: (identifier) @name) @symbol.constant
(static_item name: (identifier) @name) @symbol.constant
(mod_item name: (identifier) @name) @symbol.module
