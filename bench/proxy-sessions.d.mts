export interface AgentBody {
  model: string;
  max_tokens: number;
  stream: boolean;
  metadata: { user_id: string };
  system: { type: string; text: string; cache_control?: { type: string } }[];
  tools: unknown[];
  messages: { role: string; content: unknown }[];
}
export function agentSession(results: number, opts?: { seed?: number; session?: string }): AgentBody;
export function turnOf(body: AgentBody, end: number): AgentBody;
