import type { Conversation } from './useConversation'
import type { Role } from './request'

/** The conversation, each message's role and text editable, and the answer while it streams in. */
export function MessageList({ conversation, reply, streaming }: { conversation: Conversation; reply: string | null; streaming: boolean }) {
  const { messages, edit, remove } = conversation
  return (
    <ol className="messages" data-testid="pg-messages" aria-label="Messages">
      {messages.length === 0 && reply === null && <li className="muted message-empty">No messages yet. Write one below and press Enter.</li>}
      {messages.map((m, i) => (
        <li key={i} className={`message message-${m.role}`} data-testid={`pg-message-${m.role}`}>
          <div className="message-head">
            <label htmlFor={`msg-role-${i}`} className="sr-only">
              Role of message {i + 1}
            </label>
            <select
              id={`msg-role-${i}`}
              value={m.role}
              onChange={(e) => edit(i, { role: e.target.value as Role })}
              disabled={streaming}
              className="select-small"
            >
              <option value="user">user</option>
              <option value="assistant">assistant</option>
            </select>
            <button type="button" className="btn-icon" aria-label={`Remove message ${i + 1}`} onClick={() => remove(i)} disabled={streaming}>
              ×
            </button>
          </div>
          <label htmlFor={`msg-${i}`} className="sr-only">
            Message {i + 1}
          </label>
          <textarea
            id={`msg-${i}`}
            className="message-text"
            rows={Math.min(8, Math.max(1, m.content.split('\n').length))}
            value={m.content}
            onChange={(e) => edit(i, { content: e.target.value })}
            disabled={streaming}
          />
        </li>
      ))}
      {reply !== null && (
        <li className="message message-assistant message-streaming" data-testid="pg-reply">
          <div className="message-head">
            <span>assistant</span>
            {streaming && <span className="spinner" aria-label="Streaming" />}
          </div>
          <div className="message-body" aria-live="polite" data-testid="pg-reply-text">
            {reply || (streaming ? '…' : '')}
          </div>
        </li>
      )}
    </ol>
  )
}
