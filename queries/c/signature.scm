; Declarations for signature previews (C).
;
; Captures (read by src/syntax/signature.rs):
;   @declaration  a declaration node
;   @name         its name: how a symbol finds its declaration
;   @body         where the preview stops: the declaration's text before it
;                 is the signature (no @body: the whole declaration)
;   @comment      a comment, left out of previews
; When several patterns match one name, the first pattern wins.
;
; Like every pattern of outline.scm, a pattern here is rooted at a node
; that can hold declarations or at a child of one (see outline.scm).

(comment) @comment

; ---- functions ----
(function_definition declarator: (function_declarator declarator: (identifier) @name) body: (_) @body) @declaration
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)) body: (_) @body) @declaration
(function_definition declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) body: (_) @body) @declaration
(declaration declarator: (function_declarator declarator: (identifier) @name)) @declaration
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @declaration
(declaration declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @declaration

; ---- types ----
(struct_specifier name: (_) @name body: (_) @body) @declaration
(union_specifier name: (_) @name body: (_) @body) @declaration
(enum_specifier name: (_) @name body: (_) @body) @declaration
(enumerator name: (_) @name) @declaration

; a type declared where a typedef, a variable or a member is
(type_definition type: [(struct_specifier name: (_) @name body: (_) @body) (union_specifier name: (_) @name body: (_) @body) (enum_specifier name: (_) @name body: (_) @body)] @declaration)
(declaration type: [(struct_specifier name: (_) @name body: (_) @body) (union_specifier name: (_) @name body: (_) @body) (enum_specifier name: (_) @name body: (_) @body)] @declaration)
(field_declaration type: [(struct_specifier name: (_) @name body: (_) @body) (union_specifier name: (_) @name body: (_) @body) (enum_specifier name: (_) @name body: (_) @body)] @declaration)
(field_declaration type: [(struct_specifier !name body: (_) @body) (union_specifier !name body: (_) @body)] @declaration)
(type_definition declarator: (type_identifier) @name) @declaration
(field_declaration declarator: (field_identifier) @name) @declaration
(field_declaration declarator: (pointer_declarator declarator: (field_identifier) @name)) @declaration
(field_declaration declarator: (array_declarator declarator: (field_identifier) @name)) @declaration

; ---- variables ----
(declaration declarator: (init_declarator declarator: (identifier) @name)) @declaration
(declaration declarator: (init_declarator declarator: (_ declarator: (identifier) @name))) @declaration
(declaration declarator: (identifier) @name) @declaration
(declaration declarator: (_ declarator: (identifier) @name)) @declaration
(declaration declarator: (_ declarator: (_ declarator: (identifier) @name))) @declaration
(type_definition declarator: (_ declarator: (_ (_ declarator: (type_identifier) @name)))) @declaration
(field_declaration declarator: (_ declarator: (_ (_ declarator: (field_identifier) @name)))) @declaration
