import { useState } from 'react'

async function writeClipboard(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text)
  } catch {
    // Fallback where the async clipboard is not allowed (insecure origin, no permission).
    const ta = document.createElement('textarea')
    ta.value = text
    ta.setAttribute('readonly', '')
    ta.style.position = 'fixed'
    ta.style.opacity = '0'
    document.body.appendChild(ta)
    ta.select()
    document.execCommand('copy')
    ta.remove()
  }
}

export function CopyButton(props: { text: string; label?: string; testId?: string; className?: string }) {
  const [copied, setCopied] = useState(false)
  return (
    <button
      type="button"
      className={props.className ?? 'btn btn-small'}
      data-testid={props.testId ?? 'copy'}
      aria-label={copied ? 'Copied' : (props.label ?? 'Copy')}
      onClick={async () => {
        await writeClipboard(props.text)
        setCopied(true)
        setTimeout(() => setCopied(false), 1500)
      }}
    >
      {copied ? 'Copied ✓' : (props.label ?? 'Copy')}
    </button>
  )
}

/** Monospace text with a copy button. */
export function CodeBlock(props: { code: string; testId?: string; label?: string }) {
  return (
    <div className="code-block">
      <pre tabIndex={0} data-testid={props.testId} aria-label={props.label}>
        <code>{props.code}</code>
      </pre>
      <CopyButton text={props.code} testId={props.testId ? `${props.testId}-copy` : 'copy'} label="Copy" className="btn btn-small code-copy" />
    </div>
  )
}
