// Starts `override-guard lsp` for Terraform and OpenTofu files, beside whatever
// Terraform extension is installed (VS Code runs both servers on the same file).
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("override-guard").get("path") || "override-guard";
  const server = { command, args: ["lsp"] };
  client = new LanguageClient(
    "override-guard",
    "override-guard",
    { run: server, debug: server },
    {
      // By pattern, not by language id: no Terraform extension is needed for the files
      // to be recognised, and `.tofu` files have no common language id yet.
      documentSelector: [
        { scheme: "file", pattern: "**/*.{tf,tofu,tf.json,tofu.json,tfvars,tfvars.json}" },
        { scheme: "file", pattern: "**/.override-guard.toml" },
      ],
    },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
