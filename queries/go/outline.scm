; The outline of a Go file (tags-style).
;
; Captures (read by src/syntax/outline.rs):
;   @symbol.<kind>  a declaration; <kind> is the kind in snake_case (LSP's)
;   @name           its name: the text shown and the position `@line:char`
;   @scope          a method's receiver type: shown as `(Circle).Area`
;   @opaque         a function body: nothing inside it is outlined
; When several patterns match one declaration, the first pattern wins.
;
; A pattern is rooted at a node that can hold declarations (the file, a
; grouped declaration, a struct's fields, an interface: see [outline] in
; language.toml) or at a child of one.
;
; Kinds follow gopls's document symbols, so the tree-sitter outline and
; the server's agree: methods sit at the top level named after their
; receiver, structs are Struct, interfaces Interface, function types
; Function, other named types Class, fields Field, interface methods
; Method, constants Constant and variables Variable; a type's or a value's
; range starts at its name.

; ---- bodies: never looked into ----
(function_declaration body: (_) @opaque)
(method_declaration body: (_) @opaque)
(func_literal body: (_) @opaque)

; ---- functions and methods ----
(function_declaration name: (identifier) @name) @symbol.function
(method_declaration
  receiver: (parameter_list (parameter_declaration type: [(type_identifier) (pointer_type) (generic_type)] @scope))
  name: (field_identifier) @name) @symbol.method

; ---- types ----
(type_spec name: (type_identifier) @name type: (struct_type)) @symbol.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @symbol.interface
(type_spec name: (type_identifier) @name type: (function_type)) @symbol.function
(type_spec name: (type_identifier) @name) @symbol.class
(type_alias name: (type_identifier) @name) @symbol.class
(field_declaration name: (field_identifier) @name) @symbol.field
(field_declaration_list (field_declaration . type: [(type_identifier) (qualified_type) (pointer_type) (generic_type)] @name . ) @symbol.field)
(method_elem name: (field_identifier) @name) @symbol.method

; ---- values ----
(const_spec name: (identifier) @name) @symbol.constant
(var_spec name: (identifier) @name) @symbol.variable
