-- The language server's client configuration, shared by lsp/adaexplore.lua (vim.lsp.enable without setup)
-- and require("adaexplore").setup(): which Python runs `python -m adaexplore_server`, and the settings.
local M = {}

M.name = "adaexplore"
M.server_module = "adaexplore_server"

local windows = vim.fn.has("win32") == 1

--- The Python inside an environment folder ($VIRTUAL_ENV or $CONDA_PREFIX), or nil when it has none.
local function python_in(prefix)
  if not prefix or prefix == "" then return nil end
  local candidates = windows and { prefix .. "\\Scripts\\python.exe", prefix .. "\\python.exe" }
                             or { prefix .. "/bin/python" }
  for _, path in ipairs(candidates) do
    if vim.fn.executable(path) == 1 then return path end
  end
  return nil
end

--- The Python to run the server with, the first of: `explicit` (setup's `python`), vim.g.adaexplore_python,
--- the active virtual environment ($VIRTUAL_ENV), the active conda environment ($CONDA_PREFIX), then
--- python3 (python on Windows) from PATH. An explicit choice is kept even when it does not exist, so that
--- :checkhealth adaexplore can say so.
function M.python(explicit)
  local chosen = explicit or vim.g.adaexplore_python
  if type(chosen) == "string" and chosen ~= "" then return chosen end
  return python_in(vim.env.VIRTUAL_ENV) or python_in(vim.env.CONDA_PREFIX) or (windows and "python" or "python3")
end

--- The server's settings (proposer, steps, device, model, baseUrl, cacheDir): `settings`, else
--- vim.g.adaexplore_settings, else the server's defaults.
function M.settings(settings)
  return settings or vim.g.adaexplore_settings or vim.empty_dict()
end

--- A vim.lsp.config table; opts: python, cmd (replaces the whole command), settings.
function M.server(opts)
  opts = opts or {}
  local settings = M.settings(opts.settings)
  return {
    cmd = opts.cmd or { M.python(opts.python), "-m", M.server_module },
    filetypes = { "python" },
    root_markers = { "pyproject.toml", "setup.py", "setup.cfg", ".git" },
    init_options = settings,
    settings = { adaexplore = settings },
  }
end

return M
