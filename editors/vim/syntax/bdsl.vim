" Vim syntax file
" Language:    bdsl (bpfbench benchmark descriptions, docs/language.md)
" Install:     copy editors/vim/{syntax,ftdetect} into ~/.vim/ (or add editors/vim to 'runtimepath')

if exists('b:current_syntax')
  finish
endif

" Inline BPF C: `code <hook> { ... }` is highlighted as C. c.vim's own {} regions keep
" nested braces balanced, so the block ends at its own closing brace.
syn include @bdslC syntax/c.vim
unlet! b:current_syntax

syn case match

" Items and statements (keywords only as whole words; '-' belongs to names: rb-custom).
setlocal iskeyword=@,48-57,_,-
syn keyword bdslItem      include let defaults suite bench
syn keyword bdslStatement as sweep over report where until expect baseline
syn keyword bdslRangeWord step log contained
syn keyword bdslBuiltin   prog warmup duration producers consumers affinity prod_affinity cons_affinity
syn keyword bdslConstant  true false nproc

" Comments: '#' or '//' to the end of the line.
syn match  bdslComment "#.*$"  contains=bdslTodo,@Spell
syn match  bdslComment "//.*$" contains=bdslTodo,@Spell
syn keyword bdslTodo TODO FIXME XXX NOTE contained

" Strings: one line, escapes \" \\ \n \t; {param} inside labels.
syn region bdslString start=+"+ skip=+\\\\\|\\"+ end=+"+ end=+$+ oneline contains=bdslEscape,bdslLabelRef
syn match  bdslEscape   +\\[\\"nt]+ contained
syn match  bdslLabelRef "{[A-Za-z_][A-Za-z0-9_-]*}" contained

" Numbers with an attached unit: 3s 500ms 512K 4M 1_000_000 0x10 5%.
syn match bdslNumber "\<-\?\%(0[xX]\x\%(_\?\x\)*\|\d\%(_\?\d\)*\)\%(ms\|us\|ns\|s\|K\|M\|G\)\?\>"
syn match bdslNumber "-\?\<\d\%(_\?\d\)*\%(\.\d\%(_\?\d\)*\)\?%"

" Lists and ranges: [1, 2] [1..3000] [1..64 *2] [1..1000 log 5] [1ms..9ms step 2ms].
syn region bdslBracket matchgroup=bdslDelimiter start="\[" end="\]" transparent contains=ALLBUT,bdslCode,@bdslC
syn match  bdslRange "\.\." containedin=bdslBracket
syn match  bdslRangeWord "\<\%(step\|log\)\>" containedin=bdslBracket
syn match  bdslRangeWord "\*" containedin=bdslBracket

syn match bdslOperator "<=\|>=\|==\|!="
" Integer expressions: nproc - 1, max(1, nproc - 1) ('-' inside a name is part of it).
syn match bdslOperator "[+/]\|\s\zs-\ze\s"
syn match bdslFunction "\<\%(min\|max\)\ze("
syn match bdslDelimiter "[<>;,()]"

" code <hook> { C }
syn region bdslCode matchgroup=bdslCodeDelim start="\<code\s\+[A-Za-z_][A-Za-z0-9_-]*\s*{" end="}" contains=@bdslC

hi def link bdslItem       Keyword
hi def link bdslStatement  Statement
hi def link bdslRangeWord  Operator
hi def link bdslRange      Operator
hi def link bdslBuiltin    Identifier
hi def link bdslConstant   Constant
hi def link bdslComment    Comment
hi def link bdslTodo       Todo
hi def link bdslString     String
hi def link bdslEscape     SpecialChar
hi def link bdslLabelRef   Special
hi def link bdslNumber     Number
hi def link bdslOperator   Operator
hi def link bdslFunction   Function
hi def link bdslDelimiter  Delimiter
hi def link bdslCodeDelim  PreProc

let b:current_syntax = 'bdsl'
