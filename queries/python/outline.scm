; The outline of a Python file (tags-style).
;
; Captures (read by src/syntax/outline.rs):
;   @symbol.<kind>  a declaration; <kind> is the kind in snake_case (LSP's)
;   @name           its name: the text shown and the position `@line:char`
;   @opaque         a function body: nothing inside it is outlined
; When several patterns match one declaration, the first pattern wins.
;
; A pattern is rooted at a node that can hold declarations (the module, a
; decorated definition, a class's block, the block of an `if`, `try`, `for`,
; `while` or `with` at module or class level: see [outline] in
; language.toml) or at a child of one: the query runs only there, never in
; function bodies or expressions.
;
; Kinds follow ty's document symbols, so the tree-sitter outline and the
; server's agree: a def in a class is a Method (`__init__` a Constructor),
; any other def a Function; an assigned or annotated name is a Constant
; when it is written in capitals, else a Field in a class and a Variable
; elsewhere; a `type X = ...` alias is a Variable.

; ---- bodies: never looked into ----
(function_definition body: (_) @opaque)
(lambda body: (_) @opaque)

; ---- methods: a def in a class's block, or decorated there ----
(class_definition body: (block
  (function_definition name: (identifier) @name (#eq? @name "__init__")) @symbol.constructor))
(class_definition body: (block
  (decorated_definition
    definition: (function_definition name: (identifier) @name (#eq? @name "__init__")) @symbol.constructor)))
(class_definition body: (block (function_definition name: (identifier) @name) @symbol.method))
(class_definition body: (block
  (decorated_definition definition: (function_definition name: (identifier) @name) @symbol.method)))

; ---- class attributes: `name = "circle"`, `x: float` ----
(class_definition body: (block
  (expression_statement (assignment left: (identifier) @name) @symbol.constant)
  (#match? @name "^_*[A-Z][A-Z0-9_]*$")))
(class_definition body: (block
  (expression_statement (assignment left: (identifier) @name) @symbol.field)))

; ---- functions and classes ----
(function_definition name: (identifier) @name) @symbol.function
(class_definition name: (identifier) @name) @symbol.class

; ---- names bound at module level ----
(expression_statement (assignment left: (identifier) @name) @symbol.constant
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))
(expression_statement (assignment left: (identifier) @name) @symbol.variable)
(expression_statement (assignment left: (pattern_list (identifier) @name)) @symbol.variable)
(type_alias_statement left: (type (identifier) @name)) @symbol.variable
(for_statement left: (identifier) @name @symbol.variable)
(with_statement (with_clause (with_item value: (as_pattern
  alias: (as_pattern_target (identifier) @name @symbol.variable)))))
