; Declarations for signature previews (TypeScript, TSX, JavaScript).
;
; Captures (read by src/syntax/signature.rs):
;   @declaration  a declaration node
;   @name         its name: how a symbol finds its declaration (a pattern
;                 without @name is found by the declaration's start)
;   @body         where the preview stops: the declaration's text before it
;                 is the signature (no @body: the whole declaration)
;   @prefix       text before @item that belongs to its declaration:
;                 `export`, `declare`, decorators (in the preview and the
;                 symbol's range)
;   @item         the declaration a @prefix belongs to
;   @comment      a comment, left out of previews
; When several patterns match one name, the first pattern wins.
;
; Like every pattern of outline.scm, a pattern here is rooted at a node
; that can hold declarations (the program, a class body, a namespace body:
; see `[outline]` in language.toml) or at a child of one: the query
; runs only there, never inside function bodies, types or expressions.
; (@comment patterns also run over a declaration's own text.)

(comment) @comment

; ---- prefixes ----
(export_statement declaration: (_) @item) @prefix
(ambient_declaration
  [(function_signature) (lexical_declaration) (variable_declaration) (class_declaration)
   (abstract_class_declaration) (interface_declaration) (type_alias_declaration)
   (enum_declaration) (module) (internal_module)] @item) @prefix
; a member's decorators are its siblings in the class body
(class_body
  (decorator)+ @prefix
  .
  [(method_definition) (method_signature) (abstract_method_signature) (public_field_definition)] @item)

; ---- functions ----
(function_declaration name: (_) @name body: (_) @body) @declaration
(generator_function_declaration name: (_) @name body: (_) @body) @declaration
(function_signature name: (_) @name) @declaration
(export_statement "default"
  value: [(function_expression body: (_) @body)
          (generator_function body: (_) @body)
          (arrow_function body: (_) @body)]) @declaration

; ---- classes and their members ----
(class_declaration name: (_) @name body: (_) @body) @declaration
(abstract_class_declaration name: (_) @name body: (_) @body) @declaration
(export_statement "default" value: (class body: (_) @body)) @declaration
(method_definition name: (_) @name body: (_) @body) @declaration
(method_signature name: (_) @name) @declaration
(abstract_method_signature name: (_) @name) @declaration
(public_field_definition name: (_) @name
  value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @declaration
(public_field_definition name: (_) @name) @declaration
; parameter properties
(method_definition
  parameters: (formal_parameters
    [(required_parameter [(accessibility_modifier) (override_modifier) "readonly"] pattern: (identifier) @name)
     (optional_parameter [(accessibility_modifier) (override_modifier) "readonly"] pattern: (identifier) @name)] @declaration))

; ---- interfaces and type members ----
(interface_declaration name: (_) @name body: (_) @body) @declaration
(property_signature name: (_) @name) @declaration
(index_signature) @declaration
(call_signature) @declaration
(construct_signature) @declaration
(type_alias_declaration name: (_) @name) @declaration

; ---- enums ----
(enum_declaration name: (_) @name body: (_) @body) @declaration
(enum_body name: (_) @name @declaration)
(enum_assignment name: (_) @name) @declaration

; ---- namespaces and modules ----
(internal_module name: (_) @name body: (_) @body) @declaration
(module name: (_) @name body: (_) @body) @declaration
(module name: (_) @name) @declaration
(ambient_declaration "global" @name (statement_block) @body) @declaration
; `global { … }` inside a module body (see outline.scm): `global` is the
; block's prefix
(statement_block
  [(expression_statement (identifier) @name) (ERROR (identifier) @name .)] @prefix
  .
  (statement_block) @item @declaration @body
  (#eq? @name "global"))

; ---- variables: a function value's body is cut ----
(lexical_declaration
  (variable_declarator name: (identifier) @name
    value: [(arrow_function body: (_) @body)
            (function_expression body: (_) @body)
            (generator_function body: (_) @body)])) @declaration
(variable_declaration
  (variable_declarator name: (identifier) @name
    value: [(arrow_function body: (_) @body)
            (function_expression body: (_) @body)
            (generator_function body: (_) @body)])) @declaration
(lexical_declaration (variable_declarator name: (identifier) @name)) @declaration
(lexical_declaration (variable_declarator name: (array_pattern (identifier) @name))) @declaration
(lexical_declaration (variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name))) @declaration
(lexical_declaration (variable_declarator name: (object_pattern (pair_pattern value: (identifier) @name)))) @declaration
(variable_declaration (variable_declarator name: (identifier) @name)) @declaration
(variable_declaration (variable_declarator name: (array_pattern (identifier) @name))) @declaration
(variable_declaration (variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name))) @declaration
(variable_declaration (variable_declarator name: (object_pattern (pair_pattern value: (identifier) @name)))) @declaration

; ---- CommonJS members (see outline.scm): a function value's body is cut ----
(expression_statement
  (assignment_expression
    left: (member_expression property: (property_identifier) @name)
    right: [(function_expression body: (_) @body)
            (arrow_function body: (_) @body)
            (generator_function body: (_) @body)]) @declaration)
(expression_statement
  (assignment_expression left: (member_expression property: (property_identifier) @name)) @declaration)
(expression_statement
  (assignment_expression
    right: (object
      (pair key: (property_identifier) @name
        value: [(function_expression body: (_) @body)
                (arrow_function body: (_) @body)
                (generator_function body: (_) @body)]) @declaration)))
(expression_statement
  (assignment_expression
    right: (object (method_definition name: (property_identifier) @name body: (_) @body) @declaration)))
(expression_statement
  (assignment_expression right: (object (pair key: (property_identifier) @name) @declaration)))
