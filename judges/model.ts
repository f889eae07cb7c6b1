// The model call a judge makes: one JSON question, answered as text with its cost. The harness
// passes its models in; they have this shape (and more the judges do not use).

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** What a call cost, as the judges total it. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  latencyMs: number;
}

export interface Model {
  /** The spec the user gave: judges name it in their errors and key their answer cache by it. */
  readonly spec: string;
  complete(request: { system?: string; messages: ChatMessage[]; maxOutputTokens?: number; signal?: AbortSignal }): Promise<{ content: string; usage: Usage }>;
}
