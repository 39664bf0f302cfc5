import { useState } from 'react'
import { Segmented } from './Segmented'
import { CodeBlock } from './Copy'
import { curlSnippet, jsSnippet, pythonSnippet, type SnippetInput } from '../lib/snippets'

type Lang = 'curl' | 'python' | 'javascript'

/** The same request as curl, Python and JavaScript, each ready to copy. */
export function Snippets({ input, testId = 'snippet' }: { input: SnippetInput; testId?: string }) {
  const [lang, setLang] = useState<Lang>('curl')
  const code = lang === 'curl' ? curlSnippet(input) : lang === 'python' ? pythonSnippet(input) : jsSnippet(input)
  return (
    <div className="snippets">
      <Segmented<Lang>
        label="Snippet language"
        value={lang}
        onChange={setLang}
        testId={`${testId}-lang`}
        options={[
          { value: 'curl', label: 'curl' },
          { value: 'python', label: 'Python' },
          { value: 'javascript', label: 'JavaScript' },
        ]}
      />
      <CodeBlock code={code} testId={testId} label={`${lang} example`} />
    </div>
  )
}
