-- Neovim config for the README's screenshot (docs/screenshot/take.sh): override-guard lsp
-- on the file given, its inlay hints drawn as virtual text at the ends of lines (what
-- Neovim 0.10+ does itself with vim.lsp.inlay_hint.enable(); Debian 12 ships 0.7).
vim.opt.termguicolors = true
vim.opt.number = true
vim.opt.laststatus = 2
vim.opt.shortmess:append("I")
vim.cmd("highlight Normal guifg=#d8dee9 guibg=#1f2430")
vim.cmd("highlight LineNr guifg=#4c566a guibg=#1f2430")
vim.cmd("highlight Comment guifg=#7c8797 gui=italic")
vim.cmd("highlight OverrideGuardHint guifg=#e5a657 gui=italic")
vim.cmd("highlight DiagnosticVirtualTextWarn guifg=#ebcb8b")
vim.cmd("syntax match Comment /#.*$/")

vim.diagnostic.config({ virtual_text = false, signs = true })

local function draw(buf, id)
  vim.lsp.buf_attach_client(buf, id)
  local replies = vim.lsp.buf_request_sync(buf, "textDocument/inlayHint", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = { line = 0, character = 0 }, ["end"] = { line = 9999, character = 0 } },
  }, 20000) or {}
  local ns = vim.api.nvim_create_namespace("override-guard-hints")
  local first
  for _, r in pairs(replies) do
    for _, h in ipairs(r.result or {}) do
      first = first or h.position.line
      vim.api.nvim_buf_set_extmark(buf, ns, h.position.line, 0, {
        virt_text = { { "  " .. h.label, "OverrideGuardHint" } },
        virt_text_pos = "eol",
      })
    end
  end
  return first
end

-- main.tf above (scrolled to its first hint), override.tf below.
vim.api.nvim_create_autocmd("VimEnter", { callback = function()
  local main = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({ name = "override-guard", cmd = { os.getenv("OG_BIN"), "lsp" }, root_dir = vim.fn.getcwd() })
  vim.lsp.buf_attach_client(main, id)
  vim.wait(20000, function() return #vim.diagnostic.get(main) > 0 end, 20)
  local first = draw(main, id)
  if first then
    vim.api.nvim_win_set_cursor(0, { math.max(first - 1, 1), 0 })
    vim.cmd("normal! zt")
  end
  vim.cmd("belowright 11split override.tf")
  draw(vim.api.nvim_get_current_buf(), id)
  vim.cmd("wincmd k")
end })
vim.cmd("highlight StatusLine guifg=#d8dee9 guibg=#3b4252 gui=NONE")
vim.cmd("highlight StatusLineNC guifg=#7c8797 guibg=#2e3440 gui=NONE")
vim.cmd("highlight SignColumn guibg=#1f2430")
vim.cmd("highlight DiagnosticSignWarn guifg=#ebcb8b guibg=#1f2430")
