; The outline of a TypeScript, TSX or JavaScript file (tags-style).
;
; Captures (read by src/syntax/outline.rs):
;   @symbol.<kind>  a declaration; <kind> is the kind in snake_case (LSP's, and
;                   type_alias)
;   @name           its name: the text shown and the position `@line:char`
;                   (a pattern without @name names the symbol with
;                   `(#set! name "...")` and points at the declaration)
;   @shown          the part of @name the symbol is named by and sits at,
;                   where not all of it (the literal of `['long long']`)
;   @opaque         a function body, or a class's or interface's type
;                   parameters: nothing inside it is outlined
;   @qualifier      the object a member is assigned to (`res` of
;                   `res.send = function …`): `res.send` names the member
; When several patterns match one declaration, the first pattern wins.
;
; A pattern is rooted at a node that can hold declarations (the file, a
; class body, a namespace body, an object type in a heritage clause: see
; `[outline]` in language.toml) or at a child of one: the query runs only
; there, so it never walks function bodies, other types or expressions,
; where most of a file's nodes are. @opaque says the same in the query's
; own terms.
;
; Kinds follow typescript-language-server (tsserver's navtree), so the
; tree-sitter outline and the server's agree: enum members are Constant,
; type aliases Variable, getters and setters Method, `const` Constant and
; `let`/`var` Variable whatever their value, index/call/construct signatures
; Variable named `[]`, `()` and `new()` (in an object type of a heritage
; clause, which that server does not list, TypeScript 7's server's kinds:
; Property, Method and Constructor).

; ---- function bodies: never looked into ----
(function_declaration body: (_) @opaque)
(generator_function_declaration body: (_) @opaque)
(function_expression body: (_) @opaque)
(generator_function body: (_) @opaque)
(arrow_function body: (_) @opaque)
(method_definition body: (_) @opaque)
(class_static_block body: (_) @opaque)
; nor a class's or interface's type parameters: an object type in a
; constraint or default (`<T extends { id: string }>`) holds no members of it
(class_declaration type_parameters: (_) @opaque)
(abstract_class_declaration type_parameters: (_) @opaque)
(class type_parameters: (_) @opaque)
(interface_declaration type_parameters: (_) @opaque)

; ---- functions ----
(function_declaration name: (identifier) @name) @symbol.function
(generator_function_declaration name: (identifier) @name) @symbol.function
; overload signatures and `declare function`
(function_signature name: (identifier) @name) @symbol.function

; ---- members named by a literal in brackets ----
; `['long long'](v: unknown): number` declares the member `'long long'`,
; as `'long long'(v: unknown): number` does: it is named by its literal, as
; TypeScript 7's server names it (typescript-language-server keeps the
; brackets), and sits at the literal, where both servers answer for the
; member (they put it at the bracket, where TypeScript 7's server answers
; nothing).
; Rooted at the member, a child of a class or interface body or of an
; object type; before the patterns of those, so these win.
(method_definition name: (computed_property_name [(string) (number)] @shown) @name) @symbol.method
(method_signature name: (computed_property_name [(string) (number)] @shown) @name) @symbol.method
(abstract_method_signature name: (computed_property_name [(string) (number)] @shown) @name) @symbol.method
(public_field_definition name: (computed_property_name [(string) (number)] @shown) @name) @symbol.property
(property_signature name: (computed_property_name [(string) (number)] @shown) @name) @symbol.property

; ---- classes ----
(class_declaration name: (type_identifier) @name) @symbol.class
(abstract_class_declaration name: (type_identifier) @name) @symbol.class
((export_statement "default" value: (class)) @symbol.class (#set! name "default"))
((export_statement "default" value: [(function_expression) (generator_function) (arrow_function)]) @symbol.function (#set! name "default"))

(class_body
  (method_definition name: (property_identifier) @name (#eq? @name "constructor")) @symbol.constructor)
(class_body
  (method_signature name: (property_identifier) @name (#eq? @name "constructor")) @symbol.constructor)
(class_body (method_definition name: (_) @name) @symbol.method)
(class_body (method_signature name: (_) @name) @symbol.method)
(class_body (abstract_method_signature name: (_) @name) @symbol.method)
(class_body (public_field_definition name: (_) @name) @symbol.property)
(class_body (index_signature) @symbol.variable (#set! name "[]"))

; parameter properties: `constructor(private readonly x: number)` declares
; a property of the class (nesting hoists it out of the constructor)
(method_definition
  name: (property_identifier) @_constructor (#eq? @_constructor "constructor")
  parameters: (formal_parameters
    [(required_parameter [(accessibility_modifier) (override_modifier) "readonly"] pattern: (identifier) @name)
     (optional_parameter [(accessibility_modifier) (override_modifier) "readonly"] pattern: (identifier) @name)] @symbol.property))

; ---- interfaces ----
(interface_declaration name: (type_identifier) @name) @symbol.interface
(interface_body (property_signature name: (_) @name) @symbol.property)
(interface_body (method_signature name: (_) @name) @symbol.method)
(interface_body (index_signature) @symbol.variable (#set! name "[]"))
(interface_body (call_signature) @symbol.variable (#set! name "()"))
(interface_body (construct_signature) @symbol.variable (#set! name "new()"))

; ---- object types in what a class or interface extends or implements ----
; `interface D extends Declare<{ kind: "max" }>`: the members are the
; declaration's own (they nest under it by range), at any depth in the
; heritage clause's types (the walk reaches no other object type: see
; language.toml). typescript-language-server does not list them; TypeScript
; 7's server does, and its kinds are used: an index signature is a Property,
; a call signature a Method, a construct signature a Constructor. A mapped
; type (`{ [K in keyof T]: X }`, an index signature without an index type)
; declares no member.
(object_type (property_signature name: (_) @name) @symbol.property)
(object_type (method_signature name: (_) @name) @symbol.method)
(object_type (index_signature index_type: (_)) @symbol.property (#set! name "[]"))
(object_type (call_signature) @symbol.method (#set! name "()"))
(object_type (construct_signature) @symbol.constructor (#set! name "new()"))

; ---- type aliases ----
(type_alias_declaration name: (type_identifier) @name) @symbol.type_alias

; ---- enums ----
(enum_declaration name: (identifier) @name) @symbol.enum
(enum_body name: (_) @name @symbol.constant)
(enum_body (enum_assignment name: (_) @name) @symbol.constant)

; ---- namespaces and modules ----
(internal_module name: (_) @name) @symbol.module
(module name: (_) @name) @symbol.module
(ambient_declaration "global" @name) @symbol.module
; `global { … }` inside `declare module "m" { … }`: the grammar knows
; `global` only after `declare`, and reads it there as the expression
; `global` (an error when it comes first in the body) before a block. The
; block is the Module, named by `global`, where its range starts
; (signature.scm).
(statement_block
  [(expression_statement (identifier) @name) (ERROR (identifier) @name .)]
  .
  (statement_block) @symbol.module
  (#eq? @name "global"))

; ---- variables (destructuring names each binding) ----
(lexical_declaration kind: "const" (variable_declarator name: (identifier) @name) @symbol.constant)
(lexical_declaration kind: "const" (variable_declarator name: (array_pattern (identifier) @name @symbol.constant)))
(lexical_declaration kind: "const" (variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name @symbol.constant)))
(lexical_declaration kind: "const" (variable_declarator name: (object_pattern (pair_pattern value: (identifier) @name @symbol.constant))))
(lexical_declaration kind: "let" (variable_declarator name: (identifier) @name) @symbol.variable)
(lexical_declaration kind: "let" (variable_declarator name: (array_pattern (identifier) @name @symbol.variable)))
(lexical_declaration kind: "let" (variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name @symbol.variable)))
(lexical_declaration kind: "let" (variable_declarator name: (object_pattern (pair_pattern value: (identifier) @name @symbol.variable))))
(variable_declaration (variable_declarator name: (identifier) @name) @symbol.variable)
(variable_declaration (variable_declarator name: (array_pattern (identifier) @name @symbol.variable)))
(variable_declaration (variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name @symbol.variable)))
(variable_declaration (variable_declarator name: (object_pattern (pair_pattern value: (identifier) @name @symbol.variable))))

; ---- CommonJS: members assigned at the top level ----
; `exports.x = function`, `module.exports.x = …`, `res.x = function x() {}`,
; `Foo.prototype.x = function`: a function value is a Function named by the
; member, beside the object rather than under it (the assignment is not
; inside the object's declaration), its range the assignment without its
; `;`. Any other value assigned to `exports` or `module.exports` is a
; Constant, as typescript-language-server has it. The symbol sits at the
; member's name, where both servers answer references and renames of the
; member (the servers' outlines put it at the function's own name).
(expression_statement
  (assignment_expression
    left: (member_expression object: (_) @qualifier property: (property_identifier) @name)
    right: [(function_expression) (arrow_function) (generator_function)]) @symbol.function)
((expression_statement
  (assignment_expression
    left: (member_expression object: (identifier) @_exports property: (property_identifier) @name)) @symbol.constant)
  (#eq? @_exports "exports"))
((expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
      property: (property_identifier) @name)) @symbol.constant)
  (#eq? @_module "module") (#eq? @_exports "exports"))
; `module.exports = { a: function () {}, b() {}, c: 1 }`: each member, a
; Method for a function value, else a Property
((expression_statement
  (assignment_expression
    left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
    right: (object
      (pair key: (property_identifier) @name
        value: [(function_expression) (arrow_function) (generator_function)]) @symbol.method)))
  (#eq? @_module "module") (#eq? @_exports "exports"))
((expression_statement
  (assignment_expression
    left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
    right: (object (method_definition name: (property_identifier) @name) @symbol.method)))
  (#eq? @_module "module") (#eq? @_exports "exports"))
((expression_statement
  (assignment_expression
    left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
    right: (object (pair key: (property_identifier) @name) @symbol.property)))
  (#eq? @_module "module") (#eq? @_exports "exports"))
