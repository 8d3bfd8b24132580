; The outline of a C file (tags-style).
;
; Captures (read by src/syntax/outline.rs):
;   @symbol.<kind>  a declaration; <kind> is the kind in snake_case (LSP's)
;   @name           its name: the text shown and the position `@line:char`
;   @opaque         a function body: nothing inside it is outlined
; When several patterns match one declaration, the first pattern wins.
;
; A pattern is rooted at a node that can hold declarations (the file, a
; preprocessor conditional's branch, `extern "C" { }`, a struct, union or
; enum body: see [outline] in language.toml) or at a child of one.
;
; Kinds follow clangd's document symbols, so the tree-sitter outline and
; the server's agree: structs are Struct, unions and typedefs Class, enums
; Enum and their enumerators EnumMember, members Field, functions (defined
; or declared) Function, variables Variable. Macros are not symbols to
; clangd.

; ---- bodies: never looked into ----
(function_definition body: (_) @opaque)

; ---- functions, through the declarators of their return type ----
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @symbol.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @symbol.function
(function_definition declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @symbol.function
(declaration declarator: (function_declarator declarator: (identifier) @name)) @symbol.function
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @symbol.function
(declaration declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @symbol.function

; ---- types ----
(struct_specifier name: (type_identifier) @name body: (_)) @symbol.struct
(union_specifier name: (type_identifier) @name body: (_)) @symbol.class
((union_specifier !name body: (_)) @symbol.class (#set! name "(anonymous union)"))
((struct_specifier !name body: (_)) @symbol.struct (#set! name "(anonymous struct)"))
(enum_specifier name: (type_identifier) @name body: (_)) @symbol.enum
(enumerator name: (identifier) @name) @symbol.enum_member
(declaration type: (struct_specifier name: (type_identifier) @name body: (_)) @symbol.struct)
(declaration type: (union_specifier name: (type_identifier) @name body: (_)) @symbol.class)
(declaration type: (enum_specifier name: (type_identifier) @name body: (_)) @symbol.enum)
; a typedef of a type with a body: its name alone (the type is its sibling)
(type_definition type: (struct_specifier name: (type_identifier) @name body: (_)) @symbol.struct)
(type_definition type: (union_specifier name: (type_identifier) @name body: (_)) @symbol.class)
(type_definition type: (enum_specifier name: (type_identifier) @name body: (_)) @symbol.enum)
(type_definition type: (struct_specifier !name body: (_)) @symbol.struct (#set! name "(anonymous struct)"))
(type_definition type: (union_specifier !name body: (_)) @symbol.class (#set! name "(anonymous union)"))
(type_definition type: (enum_specifier !name body: (_)) @symbol.enum (#set! name "(anonymous enum)"))
(type_definition type: [(struct_specifier body: (_)) (union_specifier body: (_)) (enum_specifier body: (_))]
  declarator: (type_identifier) @name @symbol.class)
(type_definition declarator: (type_identifier) @name) @symbol.class
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @symbol.class
(type_definition declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))) @symbol.class

; ---- members: a member whose type has a body is named alone (the body
; is its sibling) ----
(field_declaration
  type: (union_specifier !name body: (_)) @symbol.class (#set! name "(anonymous union)"))
(field_declaration
  type: (struct_specifier !name body: (_)) @symbol.struct (#set! name "(anonymous struct)"))
(field_declaration
  type: [(struct_specifier body: (_)) (union_specifier body: (_)) (enum_specifier body: (_))]
  declarator: (field_identifier) @name @symbol.field)
(field_declaration declarator: (field_identifier) @name) @symbol.field
(field_declaration declarator: (pointer_declarator declarator: (field_identifier) @name)) @symbol.field
(field_declaration declarator: (array_declarator declarator: (field_identifier) @name)) @symbol.field
(field_declaration declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))) @symbol.field

; ---- variables ----
(declaration declarator: (init_declarator declarator: (identifier) @name)) @symbol.variable
(declaration declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))) @symbol.variable
(declaration declarator: (init_declarator declarator: (array_declarator declarator: (identifier) @name))) @symbol.variable
(declaration declarator: (identifier) @name) @symbol.variable
(declaration declarator: (_ declarator: (identifier) @name)) @symbol.variable
(declaration declarator: (_ declarator: (_ declarator: (identifier) @name))) @symbol.variable
