-- A lazy.nvim spec for the AdaExplore helper in this folder (neovim/ of an AdaExplore checkout):
--
--   local adaexplore = dofile("/path/to/AdaExplore/neovim/lazy.lua")
--   adaexplore.opts = { python = "/path/to/venv/bin/python", settings = { steps = 20 } }   -- optional
--   require("lazy").setup({ adaexplore, --[[ your other plugins ]] })
--
-- It loads on the first Python buffer or AdaExplore command and calls require("adaexplore").setup(opts).
local spec = {
  name = "adaexplore",
  main = "adaexplore",
  ft = "python",
  cmd = { "AdaExploreApply", "AdaExploreCancel", "AdaExploreJobs", "AdaExploreOptimize", "AdaExplorePreview" },
  opts = {},
}

-- The folder is this file's. lazy.nvim also reads a plugin's lazy.lua itself, as the plugin's own spec, and
-- then runs it from its cache, where this path is not the plugin's: there the user's spec gives the folder.
local folder = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
if vim.fn.filereadable(folder .. "/lua/adaexplore/init.lua") == 1 then spec.dir = folder end

return spec
