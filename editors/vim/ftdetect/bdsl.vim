" bpfbench benchmark files
autocmd BufRead,BufNewFile *.bdsl setfiletype bdsl
