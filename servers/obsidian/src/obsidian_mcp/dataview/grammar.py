"""The lark grammar of the Dataview Query Language subset (LALR, contextual lexer).

Precedence follows Dataview's parser: `* / %` bind tighter than `+ -`, which bind tighter than the
comparisons, which bind tighter than `and`/`or` (one level, left-associative: `a or b and c` is
`(a or b) and c`, as in Dataview). `!` and unary `-` apply to one postfix expression.

Literal forms that Dataview parses specially are single tokens here: `date(today)` / `date(2024-01-05)`
(DATE_LIT), `dur(7 days)` (DUR_LIT) and a lambda's head `(a, b) =>` (LAMBDA); `date("...")` and
`dur("...")` stay ordinary function calls. Keywords are case-insensitive and end at a word boundary,
so `whereabouts` is a field name; `sort(` directly followed by a parenthesis is the function,
not the SORT command. `from`, `where`, `limit` and `flatten` are never field names (as in
Dataview; `row["where"]` reaches such a field). `// comments` run to the end of the line.
"""

from __future__ import annotations

import re

DURATION_UNITS = (
    "years|year|yrs|yr|months|month|mos|mo|weeks|week|wks|wk|w|days|day|d|hours|hour|hrs|hr|h"
    "|minutes|minute|mins|min|m|seconds|second|secs|sec|s"
)
# Longest unit names first, so that `minutes` is not read as `m` + `inutes`.
DURATION_UNIT_PATTERN = "|".join(sorted(DURATION_UNITS.split("|"), key=len, reverse=True))
DURATION_PART = rf"-?\d+(?:\.\d+)?\s*(?:{DURATION_UNIT_PATTERN})"
DURATION_PATTERN = rf"{DURATION_PART}(?:(?:\s*,\s*|\s*){DURATION_PART})*"

DATE_SHORTHANDS = (
    "start-of-month|start-of-week|start-of-year|end-of-month|end-of-week|end-of-year"
    "|yesterday|tomorrow|today|now|sow|eow|som|eom|soy|eoy"
)
# Dataview's date syntax; the zone is only read after the seconds, as Dataview's parser does.
DATE_REGEX = (
    r"(?P<year>\d{4})-(?P<month>\d{2})(?:-(?P<day>\d{2})(?:T(?P<hour>\d{2})(?::(?P<minute>\d{2})"
    r"(?::(?P<second>\d{2})(?:\.(?P<milli>\d{3}))?(?P<zone>Z|[+-]\d{1,2}(?::\d{2})?|\[[0-9A-Za-z+/_-]+\])?)?)?)?)?"
)
DATE_PATTERN = re.sub(r"\(\?P<\w+>", "(?:", DATE_REGEX).replace("/", "\\/")

_WORD_END = r"(?![\w-])"
_NAME_START = r"[^\W\d_]|[\u2600-\u27bf\U0001f300-\U0001faff]"
_NAME_REST = r"[\w-]|[\u2600-\u27bf\U0001f300-\U0001faff\ufe0f]"

GRAMMAR = rf"""
?start: query
query: header from_clause? clause*

header: TABLE WITHOUT_ID? table_columns?     -> table_header
      | LIST WITHOUT_ID? expr?               -> list_header
      | TASK                                 -> task_header
      | CALENDAR expr?                       -> calendar_header

table_columns: named_expr ("," named_expr)*
named_expr: expr (AS (NAME | STRING))?

from_clause: FROM source

clause: WHERE expr                            -> where_clause
      | SORT sort_key ("," sort_key)*         -> sort_clause
      | GROUP_BY named_expr                   -> group_clause
      | FLATTEN named_expr                    -> flatten_clause
      | LIMIT expr                            -> limit_clause
sort_key: expr SORT_DIR?

?source: source_term
       | source BOOL_OP source_term           -> source_binop
?source_term: TAG                             -> tag_source
            | STRING                          -> folder_source
            | LINK                            -> incoming_source
            | OUTGOING LINK ")"               -> outgoing_source
            | CSV STRING ")"                  -> csv_source
            | MINUS source_term               -> negated_source
            | BANG source_term                -> negated_source
            | "(" source ")"

?expr: comparison
     | expr BOOL_OP comparison                -> binop
?comparison: sum
           | comparison CMP_OP sum            -> binop
?sum: product
    | sum PLUS product                        -> binop
    | sum MINUS product                       -> binop
?product: unary
        | product MUL_OP unary                -> binop
?unary: postfix
      | BANG unary                            -> not_op
      | MINUS unary                           -> neg_op
?postfix: atom
        | postfix "." NAME                    -> field_access
        | postfix "[" expr "]"                -> index_access
        | postfix "(" arguments? ")"          -> call
arguments: argument ("," argument)*
?argument: expr
         | LAMBDA expr                        -> lambda_
?atom: NUMBER                                 -> number
     | STRING                                 -> string
     | TRUE                                   -> true
     | FALSE                                  -> false
     | NULL                                   -> null
     | LINK                                   -> link
     | DATE_LIT                               -> date_literal
     | DUR_LIT                                -> duration_literal
     | NAME                                   -> variable
     | "(" expr ")"
     | "[" (expr ("," expr)*)? "]"            -> list_literal
     | "{{" (object_item ("," object_item)*)? "}}" -> object_literal
object_item: (NAME | STRING) ":" expr

TABLE.3: /table{_WORD_END}/i
LIST.3: /list{_WORD_END}/i
TASK.3: /task{_WORD_END}/i
CALENDAR.3: /calendar{_WORD_END}/i
WITHOUT_ID.3: /without\s+id{_WORD_END}/i
FROM.3: /from{_WORD_END}/i
WHERE.3: /where{_WORD_END}/i
SORT.3: /sort{_WORD_END}(?!\()/i
GROUP_BY.3: /group\s+by{_WORD_END}/i
FLATTEN.3: /flatten{_WORD_END}/i
LIMIT.3: /limit{_WORD_END}/i
AS.3: /as{_WORD_END}/i
SORT_DIR.3: /(?:ascending|descending|asc|desc){_WORD_END}/i
BOOL_OP.3: /(?:and|or){_WORD_END}|&|\|/i
TRUE.3: /[Tt]rue{_WORD_END}/
FALSE.3: /[Ff]alse{_WORD_END}/
NULL.3: /null{_WORD_END}/
OUTGOING.4: /outgoing\(\s*/
CSV.4: /csv\(\s*/
DATE_LIT.4: /date\(\s*(?:(?:{DATE_SHORTHANDS}){_WORD_END}|{DATE_PATTERN})\s*\)/
DUR_LIT.4: /dur\(\s*{DURATION_PATTERN}\s*\)/
LAMBDA.4: /\(\s*(?:(?:{_NAME_START})(?:{_NAME_REST})*(?:\s*,\s*(?:{_NAME_START})(?:{_NAME_REST})*)*)?\s*\)\s*=>/
LINK.4: /!?\[\[[^\[\]]*?\]\]/
TAG.2: /#[^\u2000-\u206F\u2E00-\u2E7F'!"#$%&()*+,.:;<=>?@^`{{|}}~\[\]\\\s]+/
STRING.2: /"(?:[^"\\]|\\.)*"/s
NUMBER.2: /\d+(?:\.\d+)?/
NAME: /(?:{_NAME_START})(?:{_NAME_REST})*/
CMP_OP: />=|<=|!=|=|<|>/
PLUS: "+"
MINUS: "-"
MUL_OP: /[*\/%]/
BANG: "!"

COMMENT: /\/\/[^\n]*/
%import common.WS
%ignore WS
%ignore COMMENT
"""
