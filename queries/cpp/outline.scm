; The outline of a C++ file, and of every header (tags-style).
;
; Captures (read by src/syntax/outline.rs):
;   @symbol.<kind>  a declaration; <kind> is the kind in snake_case (LSP's)
;   @name           its name: the text shown and the position `@line:char`
;   @scope          the class a definition outside it names
;                   (`Circle` of `double Circle::area() const { … }`): shown
;                   before the name, `Circle::area`, as clangd does
;   @opaque         a function body: nothing inside it is outlined
; When several patterns match one declaration, the first pattern wins.
;
; A pattern is rooted at a node that can hold declarations (the file, a
; preprocessor conditional's branch, a namespace or `extern "C"` body, a
; class, struct, union or enum body, a template: see [outline] in
; language.toml) or at a child of one.
;
; Kinds follow clangd's document symbols, so the tree-sitter outline and
; the server's agree: structs are Struct, classes, unions, typedefs and
; aliases Class, enums Enum and their enumerators EnumMember, data members
; Field, member
; functions Method (constructors and destructors Constructor), other
; functions Function, namespaces Namespace, variables Variable. A
; definition outside its class (`Circle::area`) is a Method, or a
; Constructor where it is named as its class is. Macros are not symbols to
; clangd.

; ---- bodies: never looked into ----
(function_definition body: (_) @opaque)
(lambda_expression body: (_) @opaque)

; ---- constructors and destructors ----
(function_definition declarator: (function_declarator
  declarator: (qualified_identifier scope: (_) @scope name: (identifier) @name)
  (#eq? @scope @name))) @symbol.constructor
(function_definition declarator: (function_declarator
  declarator: (qualified_identifier scope: (_) @scope name: (destructor_name) @name))) @symbol.constructor
(field_declaration_list (function_definition declarator: (function_declarator declarator: (identifier) @name)) @symbol.constructor)
(field_declaration_list (declaration declarator: (function_declarator declarator: (identifier) @name)) @symbol.constructor)
(function_definition declarator: (function_declarator declarator: (destructor_name) @name)) @symbol.constructor
(declaration declarator: (function_declarator declarator: (destructor_name) @name)) @symbol.constructor
(field_declaration declarator: (function_declarator declarator: (destructor_name) @name)) @symbol.constructor

; ---- member functions: in a class body, or defined outside it ----
(function_definition declarator: (function_declarator
  declarator: (qualified_identifier scope: (_) @scope name: [(identifier) (operator_name)] @name))) @symbol.method
(function_definition declarator: (_ declarator: (function_declarator
  declarator: (qualified_identifier scope: (_) @scope name: [(identifier) (operator_name)] @name)))) @symbol.method
(function_definition declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name)) @symbol.method
(function_definition declarator: (_ declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name))) @symbol.method
(field_declaration declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name)) @symbol.method
(field_declaration declarator: (_ declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name))) @symbol.method
(field_declaration_list (declaration declarator: (function_declarator declarator: (operator_name) @name)) @symbol.method)
; a reference return type: `const T &get() const`
(function_definition declarator: (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name)] @name))) @symbol.method
(field_declaration declarator: (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name)] @name))) @symbol.method

; ---- functions, through the declarators of their return type ----
(function_definition declarator: (function_declarator declarator: [(identifier) (operator_name)] @name)) @symbol.function
(function_definition declarator: (_ declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))) @symbol.function
(function_definition declarator: (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))) @symbol.function
(declaration declarator: (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))) @symbol.function
(declaration declarator: (function_declarator declarator: [(identifier) (operator_name)] @name)) @symbol.function
(declaration declarator: (_ declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))) @symbol.function

; ---- namespaces ----
(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name) @symbol.namespace
((namespace_definition !name) @symbol.namespace (#set! name "(anonymous namespace)"))

; ---- types ----
(class_specifier name: (_) @name body: (_)) @symbol.class
(struct_specifier name: (_) @name body: (_)) @symbol.struct
(union_specifier name: (_) @name body: (_)) @symbol.class
((union_specifier !name body: (_)) @symbol.class (#set! name "(anonymous union)"))
((struct_specifier !name body: (_)) @symbol.struct (#set! name "(anonymous struct)"))
(enum_specifier name: (_) @name body: (_)) @symbol.enum
(enumerator name: (identifier) @name) @symbol.enum_member
(alias_declaration name: (type_identifier) @name) @symbol.class
(declaration type: [(class_specifier name: (_) @name body: (_)) (union_specifier name: (_) @name body: (_))] @symbol.class)
(declaration type: (struct_specifier name: (_) @name body: (_)) @symbol.struct)
(declaration type: (enum_specifier name: (_) @name body: (_)) @symbol.enum)
(field_declaration type: [(class_specifier name: (_) @name body: (_)) (union_specifier name: (_) @name body: (_))] @symbol.class)
(field_declaration type: (struct_specifier name: (_) @name body: (_)) @symbol.struct)
(field_declaration type: (enum_specifier name: (_) @name body: (_)) @symbol.enum)
; a typedef of a type with a body: its name alone (the type is its sibling)
(type_definition type: [(class_specifier name: (_) @name body: (_)) (union_specifier name: (_) @name body: (_))] @symbol.class)
(type_definition type: (struct_specifier name: (_) @name body: (_)) @symbol.struct)
(type_definition type: (enum_specifier name: (_) @name body: (_)) @symbol.enum)
(type_definition type: (struct_specifier !name body: (_)) @symbol.struct (#set! name "(anonymous struct)"))
(type_definition type: (union_specifier !name body: (_)) @symbol.class (#set! name "(anonymous union)"))
(type_definition type: (enum_specifier !name body: (_)) @symbol.enum (#set! name "(anonymous enum)"))
(type_definition type: [(class_specifier body: (_)) (struct_specifier body: (_)) (union_specifier body: (_)) (enum_specifier body: (_))]
  declarator: (type_identifier) @name @symbol.class)
(type_definition declarator: (type_identifier) @name) @symbol.class
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @symbol.class
(type_definition declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))) @symbol.class

; ---- data members: one whose type has a body is named alone (the body
; is its sibling) ----
(field_declaration
  type: (union_specifier !name body: (_)) @symbol.class (#set! name "(anonymous union)"))
(field_declaration
  type: (struct_specifier !name body: (_)) @symbol.struct (#set! name "(anonymous struct)"))
(field_declaration
  type: [(class_specifier body: (_)) (struct_specifier body: (_)) (union_specifier body: (_)) (enum_specifier body: (_))]
  declarator: (field_identifier) @name @symbol.field)
; a static data member is a Property to clangd, and so is its definition
; outside the class (`int Box<int>::count = 0;`)
((field_declaration (storage_class_specifier) @_static declarator: (field_identifier) @name) @symbol.property
  (#eq? @_static "static"))
(declaration declarator: (init_declarator
  declarator: (qualified_identifier scope: (_) @scope name: (identifier) @name))) @symbol.property
(declaration declarator: (qualified_identifier scope: (_) @scope name: (identifier) @name)) @symbol.property
(field_declaration declarator: (field_identifier) @name) @symbol.field
(field_declaration declarator: [(pointer_declarator) (reference_declarator) (array_declarator)] (field_identifier) @name) @symbol.field
(field_declaration declarator: (_ declarator: (field_identifier) @name)) @symbol.field

; ---- variables ----
(declaration declarator: (init_declarator declarator: (identifier) @name)) @symbol.variable
(declaration declarator: (init_declarator declarator: (_ declarator: (identifier) @name))) @symbol.variable
(declaration declarator: (init_declarator declarator: (reference_declarator (identifier) @name))) @symbol.variable
(declaration declarator: (identifier) @name) @symbol.variable
(declaration declarator: (_ declarator: (identifier) @name)) @symbol.variable
(declaration declarator: (_ declarator: (_ declarator: (identifier) @name))) @symbol.variable
