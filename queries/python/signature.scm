; Declarations for signature previews (Python).
;
; Captures (read by src/syntax/signature.rs):
;   @declaration  a declaration node
;   @name         its name: how a symbol finds its declaration
;   @body         where the preview stops: the declaration's text before it
;                 is the signature (no @body: the whole declaration)
;   @prefix       text before @item that belongs to its declaration: its
;                 decorators (in the preview and the symbol's range)
;   @item         the declaration a @prefix belongs to
;   @comment      a comment, left out of previews
; When several patterns match one name, the first pattern wins.
;
; Like every pattern of outline.scm, a pattern here is rooted at a node
; that can hold declarations or at a child of one (see outline.scm).

(comment) @comment

; ---- decorators ----
(decorated_definition definition: (_) @item) @prefix

; ---- functions and classes ----
(function_definition name: (_) @name body: (_) @body) @declaration
(class_definition name: (_) @name body: (_) @body) @declaration

; ---- names bound by assignment: the whole statement ----
(expression_statement (assignment left: (identifier) @name)) @declaration
(type_alias_statement left: (type (identifier) @name)) @declaration
(expression_statement (assignment left: (pattern_list (identifier) @name))) @declaration

; ---- names a statement binds: its header ----
(for_statement left: (identifier) @name body: (_) @body) @declaration
(with_statement
  (with_clause (with_item value: (as_pattern alias: (as_pattern_target (identifier) @name))))
  body: (_) @body) @declaration
