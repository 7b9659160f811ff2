import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

export declare const DEFINITION: string;
export declare const INSTRUCTION_TEXT: string;
export declare const NOTEBOOK: string;
export declare function testMcpServer(name?: string): McpServer;
