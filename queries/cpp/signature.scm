; Declarations for signature previews (C++ and headers).
;
; Captures (read by src/syntax/signature.rs):
;   @declaration  a declaration node
;   @name         its name: how a symbol finds its declaration
;   @body         where the preview stops: the declaration's text before it
;                 is the signature (no @body: the whole declaration)
;   @prefix       text before @item that belongs to its declaration: a
;                 template's parameters (in the preview and the range)
;   @item         the declaration a @prefix belongs to
;   @comment      a comment, left out of previews
; When several patterns match one name, the first pattern wins.
;
; Like every pattern of outline.scm, a pattern here is rooted at a node
; that can hold declarations or at a child of one (see outline.scm).

(comment) @comment

; ---- templates ----
(template_declaration [(function_definition) (declaration) (class_specifier) (struct_specifier) (alias_declaration) (field_declaration)] @item) @prefix

; ---- functions, members and not ----
(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (_) @name)) body: (_) @body) @declaration
(function_definition declarator: (_ declarator: (function_declarator declarator: (qualified_identifier name: (_) @name))) body: (_) @body) @declaration
(function_definition declarator: (function_declarator declarator: (_) @name) body: (_) @body) @declaration
(function_definition declarator: (_ declarator: (function_declarator declarator: (_) @name)) body: (_) @body) @declaration
(function_definition declarator: (function_declarator declarator: (_) @name)) @declaration
(function_definition declarator: (reference_declarator (function_declarator declarator: (_) @name)) body: (_) @body) @declaration
(field_declaration declarator: (reference_declarator (function_declarator declarator: (_) @name))) @declaration
(declaration declarator: (init_declarator declarator: (qualified_identifier name: (_) @name))) @declaration
(field_declaration declarator: (function_declarator declarator: (_) @name)) @declaration
(field_declaration declarator: (_ declarator: (function_declarator declarator: (_) @name))) @declaration
(declaration declarator: (function_declarator declarator: (_) @name)) @declaration
(declaration declarator: (_ declarator: (function_declarator declarator: (_) @name))) @declaration

; ---- namespaces and types ----
(namespace_definition name: (_) @name body: (_) @body) @declaration
(class_specifier name: (_) @name body: (_) @body) @declaration
(struct_specifier name: (_) @name body: (_) @body) @declaration
(union_specifier name: (_) @name body: (_) @body) @declaration
(enum_specifier name: (_) @name body: (_) @body) @declaration
(enumerator name: (_) @name) @declaration

; a type declared where a typedef, a variable or a member is
(type_definition type: [(class_specifier name: (_) @name body: (_) @body) (struct_specifier name: (_) @name body: (_) @body) (union_specifier name: (_) @name body: (_) @body) (enum_specifier name: (_) @name body: (_) @body)] @declaration)
(declaration type: [(class_specifier name: (_) @name body: (_) @body) (struct_specifier name: (_) @name body: (_) @body) (union_specifier name: (_) @name body: (_) @body) (enum_specifier name: (_) @name body: (_) @body)] @declaration)
(field_declaration type: [(class_specifier name: (_) @name body: (_) @body) (struct_specifier name: (_) @name body: (_) @body) (union_specifier name: (_) @name body: (_) @body) (enum_specifier name: (_) @name body: (_) @body)] @declaration)
(field_declaration type: [(struct_specifier !name body: (_) @body) (union_specifier !name body: (_) @body)] @declaration)
(alias_declaration name: (_) @name) @declaration
(type_definition declarator: (type_identifier) @name) @declaration
(field_declaration declarator: (field_identifier) @name) @declaration
(field_declaration declarator: (_ declarator: (field_identifier) @name)) @declaration

; ---- variables ----
(declaration declarator: (init_declarator declarator: (identifier) @name)) @declaration
(declaration declarator: (init_declarator declarator: (_ declarator: (identifier) @name))) @declaration
(declaration declarator: (identifier) @name) @declaration
(declaration declarator: (_ declarator: (identifier) @name)) @declaration
(declaration declarator: (_ declarator: (_ declarator: (identifier) @name))) @declaration
(type_definition declarator: (_ declarator: (_ (_ declarator: (type_identifier) @name)))) @declaration
(field_declaration declarator: (_ declarator: (_ (_ declarator: (field_identifier) @name)))) @declaration
