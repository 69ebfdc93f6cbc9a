-- AdaExplore's commands and autocommands, so that vim.lsp.enable("adaexplore") needs no setup() call.
if vim.g.loaded_adaexplore or vim.fn.has("nvim-0.11") == 0 then return end   -- :checkhealth adaexplore says why
vim.g.loaded_adaexplore = true
require("adaexplore").register()
