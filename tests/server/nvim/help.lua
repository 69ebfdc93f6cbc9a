-- :help adaexplore from a copy of the helper: build its tags (:helptags must accept them), open the page,
-- and look up every |link| of it. Environment: ADAEXPLORE_DOC (the copy's doc folder), ADAEXPLORE_REPORT.
local doc = os.getenv("ADAEXPLORE_DOC")
local report = { errors = {}, broken = {} }
local ok, err = pcall(vim.cmd.helptags, doc)
if not ok then table.insert(report.errors, err) end
ok, err = pcall(vim.cmd.help, "adaexplore")
if not ok then table.insert(report.errors, err) end
report.file = vim.fn.expand("%:t")
report.line = vim.api.nvim_get_current_line()
report.filetype = vim.bo.filetype
for _, line in ipairs(vim.fn.readfile(doc .. "/adaexplore.txt")) do
  for tag in line:gmatch("|([^|%s]+)|") do
    if #vim.fn.taglist("^" .. vim.fn.escape(tag, "^$.*[]~\\") .. "$") == 0 then table.insert(report.broken, tag) end
  end
end
report.tags = #vim.fn.readfile(doc .. "/tags")
local f = assert(io.open(os.getenv("ADAEXPLORE_REPORT"), "w"))
f:write(vim.json.encode(report))
f:close()
vim.cmd("qall!")
