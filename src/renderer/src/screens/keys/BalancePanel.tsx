import { useState, type FormEvent } from 'react'
import { operations, type Output } from '../../../../contract'
import type { KeySummary } from '../../../../contract/keys'
import { call } from '../../api/client'
import { Field, FormError } from '../../components/Field'
import { Badge, Section } from '../../components/Page'
import { useToast } from '../../components/Toasts'
import { dateTime, numOrUndef, usd } from '../../lib/format'
import { href } from '../../lib/router'
import { useSubmit } from '../../lib/useForm'
import { validate } from '../../lib/validate'
import { TableHead } from '../../components/Table'

type Ledger = Output<'keys.get'>['ledger']

function MoneyForm(props: { k: KeySummary; kind: 'topUp' | 'adjust'; onSaved: (k: KeySummary) => void }) {
  const toast = useToast()
  const [amount, setAmount] = useState('')
  const [note, setNote] = useState('')
  const { errors, formError, busy, submit: send } = useSubmit()
  const op = props.kind === 'topUp' ? 'keys.topUp' : 'keys.adjust'
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const input = { id: props.k.id, amount_usd: numOrUndef(amount) as number, ...(note.trim() || props.kind === 'adjust' ? { note } : {}) }
    const errs = validate(operations[op].input, input)
    if (amount.trim() === '') errs.amount_usd = 'enter an amount'
    send(errs, async () => {
      const k = await call(op, input)
      props.onSaved(k)
      toast(props.kind === 'topUp' ? `Added ${usd(input.amount_usd)} — balance is now ${usd(k.balance_usd)}` : `Balance adjusted to ${usd(k.balance_usd)}`)
      setAmount('')
      setNote('')
    })
  }
  const t = props.kind === 'topUp'
  return (
    <form className="inline-form" onSubmit={submit} noValidate data-testid={t ? 'topup-form' : 'adjust-form'}>
      <Field label={t ? 'Top-up amount (USD)' : 'Adjustment (USD, negative to lower)'} error={errors.amount_usd}>
        <input inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} data-testid={t ? 'topup-amount' : 'adjust-amount'} />
      </Field>
      <Field label={t ? 'Note (optional)' : 'Reason'} error={errors.note}>
        <input value={note} onChange={(e) => setNote(e.target.value)} data-testid={t ? 'topup-note' : 'adjust-note'} />
      </Field>
      <button className={t ? 'btn btn-primary' : 'btn'} disabled={busy} data-testid={t ? 'topup-submit' : 'adjust-submit'}>
        {t ? 'Top up' : 'Adjust'}
      </button>
      <FormError message={formError} />
    </form>
  )
}

export function BalancePanel({ k, ledger, isAdmin, onSaved }: { k: KeySummary; ledger: Ledger; isAdmin: boolean; onSaved: (k: KeySummary) => void }) {
  const low = k.prepaid && k.balance_usd !== null && k.balance_usd <= 0
  return (
    <Section title="Balance" testId="key-balance-panel">
      <div className="balance-line">
        <span className={`balance-value${low ? ' text-danger' : ''}`} data-testid="key-balance-value">
          {k.prepaid ? usd(k.balance_usd) : 'Unlimited'}
        </span>
        {k.prepaid ? (
          <Badge kind={low ? 'danger' : 'ok'}>{low ? 'Used up — requests get 402' : 'Prepaid'}</Badge>
        ) : (
          <Badge>No balance: spend is not capped</Badge>
        )}
      </div>
      {isAdmin && !k.revoked_at ? (
        <>
          <p className="muted">{k.prepaid ? 'Add money, or correct the balance with a reason.' : 'A top-up makes this key prepaid: it then stops at zero.'}</p>
          <MoneyForm k={k} kind="topUp" onSaved={onSaved} />
          {k.prepaid && <MoneyForm k={k} kind="adjust" onSaved={onSaved} />}
        </>
      ) : (
        !isAdmin && <p className="muted">Only an admin can top up a balance.</p>
      )}
      <h3>Ledger</h3>
      {ledger.length === 0 ? (
        <p className="muted" data-testid="ledger-empty">
          {k.prepaid
            ? 'No entries yet. Top-ups, adjustments and the cost of each priced request appear here.'
            : `This key has no balance, so nothing is debited and its ledger stays empty. ${isAdmin ? 'A top-up above gives it one' : 'An admin can give it one with a top-up'}; from then on each priced request is debited here.`}
        </p>
      ) : (
        <div className="table-wrap">
          <table className="table table-compact" data-testid="ledger-table">
            <TableHead cols={['When', 'Kind', { label: 'Amount', num: true }, 'By', 'Note / request']} />
            <tbody>
              {ledger.map((e) => (
                <tr key={e.id} data-testid="ledger-row">
                  <td>{dateTime(e.created_at)}</td>
                  <td>{e.kind.replace('_', '-')}</td>
                  <td className={`num ${e.amount_usd < 0 ? '' : 'text-ok'}`}>{usd(e.amount_usd)}</td>
                  <td>{e.actor}</td>
                  <td className="truncate">{e.request_id ? <a href={href('requests', e.request_id)}>{e.request_id}</a> : (e.note ?? '')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  )
}
