-- The AdaExplore language server for vim.lsp.enable("adaexplore") (Neovim 0.11+ reads lsp/<name>.lua from
-- the runtimepath). Python: vim.g.adaexplore_python, else $VIRTUAL_ENV, $CONDA_PREFIX, python3 (see
-- :help adaexplore-python); settings: vim.g.adaexplore_settings or vim.lsp.config("adaexplore", {...}).
return require("adaexplore.config").server()
