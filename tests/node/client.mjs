// A TypeScript-SDK client: connect over Streamable HTTP, list tools, call one, check the structured result.
// Usage: node client.mjs URL   (exits non-zero with a message on any failure)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = new URL(process.argv[2]);
const client = new Client({ name: "sim-mcp-ts-check", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(url));

const { tools } = await client.listTools();
const getTicket = tools.find((tool) => tool.name === "get_ticket");
if (!getTicket || !getTicket.outputSchema) throw new Error("get_ticket with an output schema is not listed");

const created = await client.callTool({
  name: "create_ticket",
  arguments: { title: "From TypeScript", description: "Checked by the TS SDK.", customer_email: "ts@example.com" },
});
if (created.isError) throw new Error(`create_ticket failed: ${JSON.stringify(created.content)}`);
const id = created.structuredContent.id;

// The SDK validates structuredContent against the tool's outputSchema on callTool.
const fetched = await client.callTool({ name: "get_ticket", arguments: { ticket_id: id } });
if (fetched.isError || fetched.structuredContent.title !== "From TypeScript") {
  throw new Error(`get_ticket did not return the created ticket: ${JSON.stringify(fetched)}`);
}
console.log(JSON.stringify({ tools: tools.length, id, title: fetched.structuredContent.title }));
await client.close();
