-- The helper's configuration without a server: which Python it chooses (setup's python, g:adaexplore_python,
-- $VIRTUAL_ENV, $CONDA_PREFIX, python3), what lsp/adaexplore.lua returns, and the lazy.nvim spec (also as
-- lazy.nvim runs it: from a copy in its cache).
-- Environment: ADAEXPLORE_RTP (the helper), ADAEXPLORE_VENV (has bin/python), ADAEXPLORE_EMPTY_VENV (has
-- none), ADAEXPLORE_CONDA (has bin/python), ADAEXPLORE_REPORT.
local config = require("adaexplore.config")
local report = {}

local function choice()
  return config.python()
end
vim.env.VIRTUAL_ENV, vim.env.CONDA_PREFIX = nil, nil
report.bare = choice()
vim.env.CONDA_PREFIX = os.getenv("ADAEXPLORE_CONDA")
report.conda = choice()
vim.env.VIRTUAL_ENV = os.getenv("ADAEXPLORE_EMPTY_VENV")
report.empty_venv = choice()
vim.env.VIRTUAL_ENV = os.getenv("ADAEXPLORE_VENV")
report.venv = choice()
vim.g.adaexplore_python = "/no/such/python"
report.global = choice()
report.explicit = config.python("/explicit/python")
report.setup_cmd = config.server({ python = "/explicit/python" }).cmd

vim.g.adaexplore_python = nil
local rtp = os.getenv("ADAEXPLORE_RTP")
report.lsp_file = dofile(rtp .. "/lsp/adaexplore.lua")
vim.g.adaexplore_settings = { steps = 3 }
report.lsp_file_with_settings = dofile(rtp .. "/lsp/adaexplore.lua")

local spec = dofile(rtp .. "/lazy.lua")
report.lazy = { dir = spec.dir, name = spec.name, main = spec.main, ft = spec.ft, cmd = spec.cmd,
                has_opts = type(spec.opts) == "table" }
report.commands = require("adaexplore").commands
-- lazy.nvim runs a plugin's lazy.lua from its own cache file: the spec must not name that cache's folder
local cached = vim.fn.fnamemodify(os.getenv("ADAEXPLORE_REPORT"), ":h") .. "/pkg-cache.lua"
vim.fn.writefile(vim.fn.readfile(rtp .. "/lazy.lua"), cached)
local from_cache = dofile(cached)
report.lazy_from_cache = { dir = from_cache.dir or vim.NIL, name = from_cache.name }

local f = assert(io.open(os.getenv("ADAEXPLORE_REPORT"), "w"))
f:write(vim.json.encode(report))
f:close()
vim.cmd("qa!")
