; Declarations for signature previews (Go).
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

(function_declaration name: (_) @name body: (_) @body) @declaration
(function_declaration name: (_) @name) @declaration
(method_declaration name: (_) @name body: (_) @body) @declaration
(method_declaration name: (_) @name) @declaration
(type_spec name: (_) @name type: [(struct_type (field_declaration_list) @body) (interface_type "{" @body)]) @declaration
(type_spec name: (_) @name) @declaration
(type_alias name: (_) @name) @declaration
(field_declaration name: (_) @name) @declaration
(method_elem name: (_) @name) @declaration
(const_spec name: (_) @name) @declaration
(var_spec name: (_) @name) @declaration
