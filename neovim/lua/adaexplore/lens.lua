-- Code lenses across Neovim versions. Neovim 0.12 manages them itself once vim.lsp.codelens.enable() is on
-- for a buffer (it asks again after edits and when the server sends workspace/codeLens/refresh); 0.10 and
-- 0.11 show them only when asked (vim.lsp.codelens.refresh({ bufnr })); older versions refresh the
-- current buffer only.
local M = {}

local codelens = vim.lsp.codelens

--- True where Neovim keeps lenses up to date by itself (0.12 and newer).
M.managed = type(codelens.enable) == "function"

--- Ask the server for the buffer's lenses now and show them.
function M.refresh(bufnr)
  if M.managed then
    -- enable() does nothing for a buffer already enabled; switching it off and on asks the server again
    if codelens.is_enabled({ bufnr = bufnr }) then codelens.enable(false, { bufnr = bufnr }) end
    codelens.enable(true, { bufnr = bufnr })
  elseif vim.fn.has("nvim-0.10") == 1 then
    codelens.refresh({ bufnr = bufnr })
  else
    vim.api.nvim_buf_call(bufnr, function() codelens.refresh() end)
  end
end

--- Lenses on for a buffer the server has just attached to.
function M.attach(bufnr)
  if M.managed then
    codelens.enable(true, { bufnr = bufnr })
  else
    M.refresh(bufnr)
  end
end

--- After an edit, a save or entering the buffer (Neovim 0.12 follows edits by itself).
function M.changed(bufnr)
  if not M.managed then M.refresh(bufnr) end
end

--- The lenses shown in a buffer, as lsp.CodeLens tables.
function M.get(bufnr)
  if M.managed then
    return vim.tbl_map(function(item) return item.lens end, codelens.get({ bufnr = bufnr }))
  end
  return codelens.get(bufnr)
end

return M
