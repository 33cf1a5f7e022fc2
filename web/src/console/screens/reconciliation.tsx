import { useEffect, useState, type ChangeEvent, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import type { ApiError } from '@/shared/api/http';
import {
  MAX_STATEMENT_BYTES,
  useConfirmMatched,
  useImportResult,
  useImports,
  useImportStatement,
  useMappings,
  usePreview,
  useSaveMapping,
} from '../api/reconciliation';
import type {
  ApiMarket,
  Currency,
  ImportResult,
  ResultLine,
  StatementMapping,
  StatementMappingRequest,
  StatementPreview,
} from '../api/types';
import { age, dateTime, day, marketName, money } from '../format';
import { consolePaths } from '../paths';
import { LoadFailed, Loading } from './states';
import { useOperatorMarkets } from '../operator-context';

/** The date formats the server reads (servicing::reconciliation::statement::DATE_FORMATS). */
export const DATE_FORMATS = [
  'dd/mm/yyyy',
  'dd-mm-yyyy',
  'dd.mm.yyyy',
  'yyyy-mm-dd',
  'mm/dd/yyyy',
  'dd/mm/yy',
  'dd-mmm-yyyy',
  'dd mmm yyyy',
  'dd-mmm-yy',
  'dd/mmm/yyyy',
] as const;

const NEW = '__new__';

function currencyOf(market: ApiMarket): Currency {
  return market === 'IN' ? 'INR' : 'IDR';
}

/** A layout as the form holds it: every number as typed. */
interface MappingDraft {
  name: string;
  market: ApiMarket;
  delimiter: string;
  skipRows: string;
  dateColumn: string;
  dateFormat: string;
  mode: 'signed' | 'split';
  amountColumn: string;
  creditColumn: string;
  debitColumn: string;
  referenceColumn: string;
  narrationColumn: string;
  decimalSeparator: string;
  thousandsSeparator: string;
}

const INDIAN_DRAFT: MappingDraft = {
  name: '',
  market: 'IN',
  delimiter: ',',
  skipRows: '1',
  dateColumn: '1',
  dateFormat: 'dd/mm/yyyy',
  mode: 'split',
  amountColumn: '',
  creditColumn: '',
  debitColumn: '',
  referenceColumn: '',
  narrationColumn: '',
  decimalSeparator: '.',
  thousandsSeparator: ',',
};

function draftOf(m: StatementMapping): MappingDraft {
  const text = (n: number | null) => (n === null ? '' : String(n));
  return {
    name: m.name,
    market: m.market,
    delimiter: m.delimiter,
    skipRows: String(m.skipRows),
    dateColumn: String(m.dateColumn),
    dateFormat: m.dateFormat,
    mode: m.amountColumn === null ? 'split' : 'signed',
    amountColumn: text(m.amountColumn),
    creditColumn: text(m.creditColumn),
    debitColumn: text(m.debitColumn),
    referenceColumn: text(m.referenceColumn),
    narrationColumn: text(m.narrationColumn),
    decimalSeparator: m.decimalSeparator,
    thousandsSeparator: m.thousandsSeparator,
  };
}

/** The request of a draft: blank numbers are left out (the server names each missing one). */
export function requestOf(d: MappingDraft): StatementMappingRequest {
  const num = (text: string) => (text.trim() === '' ? null : Number(text.trim()));
  return {
    name: d.name.trim(),
    market: d.market,
    delimiter: d.delimiter,
    skipRows: num(d.skipRows),
    dateColumn: num(d.dateColumn) as number,
    dateFormat: d.dateFormat,
    amountColumn: d.mode === 'signed' ? num(d.amountColumn) : null,
    creditColumn: d.mode === 'split' ? num(d.creditColumn) : null,
    debitColumn: d.mode === 'split' ? num(d.debitColumn) : null,
    referenceColumn: num(d.referenceColumn) as number,
    narrationColumn: num(d.narrationColumn),
    decimalSeparator: d.decimalSeparator,
    thousandsSeparator: d.thousandsSeparator,
  };
}

/**
 * Reconciliation: finance uploads a bank statement, reads it with the bank's saved layout (or maps a new one, with a
 * preview of the first lines), imports it, and sees each line against the UTR payments waiting: matched ones are
 * confirmed in one action after a step that restates the total; amounts that differ, lines without a payment and
 * payments without a line are listed apart. The import history is below.
 */
export function ReconciliationScreen() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const importId = params.get('import');
  const open = (id: string) => {
    const next = new URLSearchParams(params);
    next.set('import', id);
    setParams(next);
  };
  return (
    <section>
      <div className="page-head">
        <h1>{t('reconciliation.title')}</h1>
        <Link className="button button--quiet" to={consolePaths.repayments}>
          {t('reconciliation.back')}
        </Link>
      </div>
      <ImportPanel onImported={open} />
      {importId && <ResultPanel importId={importId} />}
      <History current={importId} />
    </section>
  );
}

function ImportPanel({ onImported }: { onImported: (importId: string) => void }) {
  const { t } = useTranslation();
  const markets = useOperatorMarkets();
  const mappings = useMappings();
  const preview = usePreview();
  const importing = useImportStatement();
  const [file, setFile] = useState<{ name: string; content: string } | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [chosen, setChosen] = useState('');
  const [editing, setEditing] = useState<MappingDraft | null>(null);
  const [creating, setCreating] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const mapping = mappings.data?.find((m) => m.id === chosen) ?? null;

  const readFile = (event: ChangeEvent<HTMLInputElement>) => {
    const picked = event.target.files?.[0];
    setFile(null);
    setNotice(null);
    importing.reset();
    preview.reset();
    if (!picked) return;
    if (picked.size > MAX_STATEMENT_BYTES) return setFileError(t('reconciliation.fileTooLarge'));
    setFileError(null);
    picked.text().then(
      (content) => setFile({ name: picked.name, content }),
      () => setFileError(t('reconciliation.fileUnreadable')),
    );
  };

  // The preview follows the file and the layout chosen (saved, or as typed once "Preview" is pressed).
  useEffect(() => {
    if (!file) return;
    if (mapping) preview.mutate({ content: file.content, mappingId: mapping.id });
    else if (!editing) preview.mutate({ content: file.content });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the preview runs when the file or the layout changes
  }, [file, mapping?.id, mapping?.updatedAt]);

  const choose = (value: string) => {
    setNotice(null);
    setCreating(value === NEW);
    if (value === NEW) {
      setChosen('');
      setEditing({ ...INDIAN_DRAFT, market: markets[0] ?? INDIAN_DRAFT.market });
    } else {
      setChosen(value);
      setEditing(null);
    }
  };

  const send = () => {
    if (!file || !mapping) return;
    importing.mutate(
      { mappingId: mapping.id, fileName: file.name, content: file.content },
      {
        onSuccess: (done) => {
          const summary = done.result.import;
          setNotice(done.duplicate ? t('reconciliation.duplicate', { file: summary.fileName, when: dateTime(summary.importedAt) }) : null);
          onImported(summary.importId);
        },
      },
    );
  };
  const importFields = importing.error?.fields ?? {};

  return (
    <div className="panel">
      <h2>{t('reconciliation.importTitle')}</h2>
      <div className="field">
        <label htmlFor="statement-file">{t('reconciliation.file')}</label>
        <input id="statement-file" type="file" accept=".csv,.txt,text/csv,text/plain" onChange={readFile} aria-describedby="statement-file-hint" />
        <p className={fileError ? 'field-error' : 'muted'} id="statement-file-hint" role={fileError ? 'alert' : undefined}>
          {fileError ?? t('reconciliation.fileHint')}
        </p>
      </div>
      <div className="field">
        <label htmlFor="statement-layout">{t('reconciliation.layout')}</label>
        {mappings.isError ? (
          <LoadFailed error={mappings.error} onRetry={() => void mappings.refetch()} />
        ) : (
          <select
            id="statement-layout"
            value={creating ? NEW : chosen}
            onChange={(event) => choose(event.target.value)}
            aria-describedby="statement-layout-hint"
          >
            <option value="">{t('reconciliation.layoutNone')}</option>
            {(mappings.data ?? []).map((m) => (
              <option key={m.id} value={m.id}>
                {m.name} · {marketName(m.market, t)}
              </option>
            ))}
            <option value={NEW}>{t('reconciliation.layoutNew')}</option>
          </select>
        )}
        <p className="muted" id="statement-layout-hint">
          {t('reconciliation.layoutHint')}
        </p>
        {mapping && !editing && (
          <div className="actions">
            <button type="button" className="button button--quiet" onClick={() => setEditing(draftOf(mapping))}>
              {t('reconciliation.editLayout')}
            </button>
          </div>
        )}
      </div>
      {editing && (
        <MappingForm
          draft={editing}
          id={mapping?.id}
          onChange={setEditing}
          onPreview={(request) => file && preview.mutate({ content: file.content, mapping: request })}
          canPreview={file !== null}
          onSaved={(saved) => {
            setEditing(null);
            setCreating(false);
            setChosen(saved.id);
            setNotice(t('reconciliation.mapping.saved', { name: saved.name }));
          }}
          onCancel={() => {
            setEditing(null);
            setCreating(false);
          }}
        />
      )}
      {notice && (
        <p role="status" className="notice notice--success">
          {notice}
        </p>
      )}
      {preview.isPending && <Loading label={t('reconciliation.previewing')} />}
      {preview.error && <FieldsFailure error={preview.error} />}
      {preview.data && file && <PreviewView preview={preview.data} currency={currencyOf(mapping?.market ?? editing?.market ?? 'IN')} />}
      {importing.error && (
        <div role="alert" className="notice notice--error">
          {Object.keys(importFields).length > 0 ? (
            <ul>
              {Object.entries(importFields).map(([field, text]) => (
                <li key={field}>{text}</li>
              ))}
            </ul>
          ) : (
            errorText(importing.error, t)
          )}
        </div>
      )}
      {file && mapping && !editing && (
        <div className="actions">
          <button type="button" className="button button--primary" onClick={send} disabled={importing.isPending}>
            {importing.isPending ? t('reconciliation.importing') : t('reconciliation.import', { file: file.name })}
          </button>
        </div>
      )}
    </div>
  );
}

function FieldsFailure({ error }: { error: ApiError }) {
  const { t } = useTranslation();
  const fields = Object.entries(error.fields);
  return (
    <div role="alert" className="notice notice--error">
      {fields.length > 0 ? (
        <ul>
          {fields.map(([field, text]) => (
            <li key={field}>{text}</li>
          ))}
        </ul>
      ) : (
        errorText(error, t)
      )}
    </div>
  );
}

function MappingForm({
  draft,
  id,
  onChange,
  onPreview,
  canPreview,
  onSaved,
  onCancel,
}: {
  draft: MappingDraft;
  id?: string;
  onChange: (d: MappingDraft) => void;
  onPreview: (request: StatementMappingRequest) => void;
  canPreview: boolean;
  onSaved: (saved: StatementMapping) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const markets = useOperatorMarkets();
  const save = useSaveMapping();
  const fields = save.error?.fields ?? {};
  const set = (key: keyof MappingDraft) => (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    onChange({ ...draft, [key]: event.target.value });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ id, mapping: requestOf(draft) }, { onSuccess: onSaved });
  };
  const field = (key: keyof MappingDraft & keyof StatementMappingRequest, label: string, control: ReactNode) => (
    <div className="field">
      <label htmlFor={`mapping-${key}`}>{label}</label>
      {control}
      {fields[key] && (
        <p className="field-error" id={`mapping-${key}-error`}>
          {fields[key]}
        </p>
      )}
    </div>
  );
  const number = (key: 'skipRows' | 'dateColumn' | 'amountColumn' | 'creditColumn' | 'debitColumn' | 'referenceColumn' | 'narrationColumn', label: string) =>
    field(
      key,
      label,
      <input
        id={`mapping-${key}`}
        inputMode="numeric"
        value={draft[key]}
        onChange={set(key)}
        aria-invalid={fields[key] ? true : undefined}
        aria-describedby={fields[key] ? `mapping-${key}-error` : undefined}
      />,
    );
  const select = (key: 'market' | 'delimiter' | 'dateFormat' | 'decimalSeparator' | 'thousandsSeparator', label: string, options: [string, string][]) =>
    field(
      key,
      label,
      <select id={`mapping-${key}`} value={draft[key]} onChange={set(key)} aria-invalid={fields[key] ? true : undefined}>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>,
    );
  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="mapping-title">
      <h3 id="mapping-title">{t('reconciliation.mapping.title')}</h3>
      {save.error && Object.keys(fields).length === 0 && <FieldsFailure error={save.error} />}
      <div className="mapping-form">
        <div className="field field--wide">
          <label htmlFor="mapping-name">{t('reconciliation.mapping.name')}</label>
          <input id="mapping-name" value={draft.name} onChange={set('name')} aria-invalid={fields.name ? true : undefined} aria-describedby={fields.name ? 'mapping-name-error' : undefined} />
          {fields.name && (
            <p className="field-error" id="mapping-name-error">
              {fields.name}
            </p>
          )}
        </div>
        {select(
          'market',
          t('reconciliation.mapping.market'),
          markets.map((m) => [m, marketName(m, t)]),
        )}
        {select(
          'delimiter',
          t('reconciliation.mapping.delimiter'),
          [',', ';', 'tab', '|'].map((d) => [d, t(`reconciliation.mapping.delimiters.${d}`)]),
        )}
        {number('skipRows', t('reconciliation.mapping.skipRows'))}
        {number('dateColumn', t('reconciliation.mapping.dateColumn'))}
        {select(
          'dateFormat',
          t('reconciliation.mapping.dateFormat'),
          DATE_FORMATS.map((f) => [f, f]),
        )}
        <fieldset className="field field--wide">
          <legend>{t('reconciliation.mapping.amountMode')}</legend>
          {(['split', 'signed'] as const).map((mode) => (
            <label key={mode} className="choice">
              <input type="radio" name="amount-mode" value={mode} checked={draft.mode === mode} onChange={() => onChange({ ...draft, mode })} />{' '}
              {t(`reconciliation.mapping.${mode}`)}
            </label>
          ))}
          {fields.amountColumn && <p className="field-error">{fields.amountColumn}</p>}
        </fieldset>
        {draft.mode === 'signed' ? (
          number('amountColumn', t('reconciliation.mapping.amountColumn'))
        ) : (
          <>
            {number('creditColumn', t('reconciliation.mapping.creditColumn'))}
            {number('debitColumn', t('reconciliation.mapping.debitColumn'))}
          </>
        )}
        {number('referenceColumn', t('reconciliation.mapping.referenceColumn'))}
        {number('narrationColumn', t('reconciliation.mapping.narrationColumn'))}
        {select('decimalSeparator', t('reconciliation.mapping.decimalSeparator'), [
          ['.', '.'],
          [',', ','],
        ])}
        {select('thousandsSeparator', t('reconciliation.mapping.thousandsSeparator'), [
          [',', ','],
          ['.', '.'],
          ['space', t('reconciliation.mapping.space')],
          ['', t('reconciliation.mapping.none')],
        ])}
      </div>
      <div className="actions">
        <button type="button" className="button" onClick={() => onPreview(requestOf(draft))} disabled={!canPreview}>
          {t('reconciliation.preview')}
        </button>
        <button type="submit" className="button button--primary" disabled={save.isPending}>
          {t('reconciliation.mapping.save')}
        </button>
        <button type="button" className="button button--quiet" onClick={onCancel}>
          {t('reconciliation.mapping.cancel')}
        </button>
      </div>
    </form>
  );
}

function PreviewView({ preview, currency }: { preview: StatementPreview; currency: Currency }) {
  const { t } = useTranslation();
  const width = Math.max(0, ...preview.rows.map((r) => r.length));
  return (
    <>
      <div className="table-scroll">
        <table className="table">
          <caption>{t('reconciliation.rowsCaption')}</caption>
          <thead>
            <tr>
              {Array.from({ length: width }, (_, i) => (
                <th key={i} scope="col">
                  {t('reconciliation.column', { n: i + 1 })}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {preview.rows.map((row, r) => (
              <tr key={r}>
                {Array.from({ length: width }, (_, i) => (
                  <td key={i} className="cell-wrap">
                    {row[i] ?? ''}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {preview.problems.length > 0 && (
        <div className="notice notice--error" role="alert">
          <h3>{t('reconciliation.problemsTitle')}</h3>
          <ul>
            {preview.problems.map((p) => (
              <li key={`${p.lineNo}-${p.column ?? 0}`}>
                {p.column === null
                  ? t('reconciliation.problemLine', { line: p.lineNo, problem: t(`reconciliation.problems.${p.problem}`) })
                  : t('reconciliation.problem', {
                      line: p.lineNo,
                      column: p.column,
                      field: p.field,
                      problem: t(`reconciliation.problems.${p.problem}`),
                      value: p.value,
                    })}
              </li>
            ))}
          </ul>
        </div>
      )}
      {preview.lines.length > 0 && (
        <div className="table-scroll">
          <table className="table">
            <caption>{t('reconciliation.linesCaption')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('reconciliation.line')}</th>
                <th scope="col">{t('reconciliation.date')}</th>
                <th scope="col" className="num">{t('reconciliation.amount')}</th>
                <th scope="col">{t('reconciliation.direction')}</th>
                <th scope="col">{t('reconciliation.reference')}</th>
                <th scope="col">{t('reconciliation.narration')}</th>
                <th scope="col">{t('reconciliation.utrs')}</th>
              </tr>
            </thead>
            <tbody>
              {preview.lines.map((l) => (
                <tr key={l.lineNo}>
                  <td>{l.lineNo}</td>
                  <td>{day(l.date)}</td>
                  <td className="num">{money(l.amount, currency)}</td>
                  <td>{l.credit ? t('reconciliation.credit') : t('reconciliation.debit')}</td>
                  <td className="cell-wrap">{l.reference}</td>
                  <td className="cell-wrap">{l.narration}</td>
                  <td>{l.utrs.join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function ResultPanel({ importId }: { importId: string }) {
  const { t } = useTranslation();
  const result = useImportResult(importId);
  if (result.isPending) return <Loading label={t('reconciliation.loading')} />;
  if (result.isError) return <LoadFailed error={result.error} onRetry={() => void result.refetch()} />;
  return <ResultView result={result.data} now={result.dataUpdatedAt} />;
}

/** `now`: when the result was read (epoch ms), the time the waiting payments' ages are counted to. */
function ResultView({ result, now }: { result: ImportResult; now: number }) {
  const { t } = useTranslation();
  const summary = result.import;
  const currency = currencyOf(summary.market);
  const confirm = useConfirmMatched();
  const [asking, setAsking] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const of = (...kinds: ResultLine['kind'][]) => result.lines.filter((l) => kinds.includes(l.kind));
  const matched = of('matched');
  const debits = of('debit').length;
  const total = money(result.matchedTotal, currency);
  const send = () =>
    confirm.mutate(summary.importId, {
      onSuccess: (outcome) => {
        setAsking(false);
        const parts = [t('reconciliation.confirmed', { count: outcome.confirmedCount, total: money(outcome.confirmedTotal, currency) })];
        if (outcome.heldCount > 0) parts.push(t('reconciliation.heldBack', { count: outcome.heldCount, total: money(outcome.heldTotal, currency) }));
        if (outcome.owedBackCount > 0)
          parts.push(t('reconciliation.owedBack', { count: outcome.owedBackCount, total: money(outcome.owedBackTotal, currency) }));
        if (outcome.skippedCount > 0) parts.push(t('reconciliation.skipped', { count: outcome.skippedCount }));
        if (outcome.failedLines.length > 0)
          parts.push(t('reconciliation.failedLines', { count: outcome.failedLines.length, lines: outcome.failedLines.join(', ') }));
        setDone(parts.join(' '));
      },
      onError: () => setAsking(false),
    });

  return (
    <div className="panel" aria-labelledby="result-title">
      <h2 id="result-title">{summary.fileName}</h2>
      <p className="muted">
        {t('reconciliation.summary', {
          file: summary.mappingName,
          market: marketName(summary.market, t),
          by: summary.importedBy,
          when: dateTime(summary.importedAt),
          lines: summary.lineCount,
          credits: summary.creditCount,
          confirmed: summary.confirmedCount,
        })}
      </p>
      {done && (
        <p role="status" className="notice notice--success">
          {done}
        </p>
      )}
      {confirm.error && <FieldsFailure error={confirm.error} />}
      {matched.length === 0 ? (
        <p className="muted">{t('reconciliation.nothingMatched')}</p>
      ) : asking ? (
        <div role="group" aria-labelledby="confirm-question" className="actions">
          <p id="confirm-question">
            <strong>{t('reconciliation.confirmQuestion', { count: result.matchedCount, total })}</strong>
          </p>
          <button type="button" className="button button--primary" onClick={send} disabled={confirm.isPending} autoFocus>
            {t('reconciliation.confirmButton', { total })}
          </button>
          <button type="button" className="button button--quiet" onClick={() => setAsking(false)} disabled={confirm.isPending}>
            {t('repayments.back')}
          </button>
        </div>
      ) : (
        <div className="actions">
          <button type="button" className="button button--primary" onClick={() => setAsking(true)}>
            {t('reconciliation.confirmMatched', { count: result.matchedCount, total })}
          </button>
        </div>
      )}
      <LinesTable id="matched" title={t('reconciliation.sections.matched')} lines={matched} currency={currency} />
      <LinesTable id="mismatched" title={t('reconciliation.sections.mismatched')} lines={of('mismatched')} currency={currency} hint={t('reconciliation.mismatchHint')} showAsked />
      <div className="recon-grid">
        <LinesTable id="unmatched" title={t('reconciliation.sections.unmatched')} lines={of('unmatched')} currency={currency} compact />
        <section aria-labelledby="waiting-title">
          <h3 id="waiting-title">
            {t('reconciliation.sections.waiting')} ({result.waiting.length})
          </h3>
          {result.waiting.length === 0 ? (
            <p className="muted">{t('reconciliation.emptySection')}</p>
          ) : (
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">{t('reconciliation.order')}</th>
                  <th scope="col">{t('repayments.utr')}</th>
                  <th scope="col" className="num">{t('reconciliation.asked')}</th>
                  <th scope="col">{t('reconciliation.waitingFor')}</th>
                </tr>
              </thead>
              <tbody>
                {result.waiting.map((p) => (
                  <tr key={p.paymentId}>
                    <td>
                      <Link to={consolePaths.order(p.orderNo)}>{p.orderNo}</Link>
                      <br />
                      <span className="muted">{p.reference}</span>
                    </td>
                    <td>{p.utr ?? '—'}</td>
                    <td className="num">{money(p.amount, currency)}</td>
                    <td>{age(Math.max(0, (now - p.waitingSince) / 1000), t)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      </div>
      <LinesTable id="done" title={t('reconciliation.sections.done')} lines={of('confirmed', 'already_confirmed')} currency={currency} showKind />
      <LinesTable id="other" title={t('reconciliation.sections.other')} lines={of('reversed', 'not_waiting', 'duplicate')} currency={currency} showKind showAsked />
      {debits > 0 && <p className="muted">{t('reconciliation.debits', { count: debits })}</p>}
    </div>
  );
}

function LinesTable({
  id,
  title,
  lines,
  currency,
  hint,
  showAsked = false,
  showKind = false,
  compact = false,
}: {
  id: string;
  title: string;
  lines: ResultLine[];
  currency: Currency;
  hint?: string;
  showAsked?: boolean;
  showKind?: boolean;
  compact?: boolean;
}) {
  const { t } = useTranslation();
  return (
    <section aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>
        {title} ({lines.length})
      </h3>
      {hint && lines.length > 0 && <p className="muted">{hint}</p>}
      {lines.length === 0 ? (
        <p className="muted">{t('reconciliation.emptySection')}</p>
      ) : (
        <div className="table-scroll">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">{t('reconciliation.line')}</th>
                <th scope="col">{t('reconciliation.date')}</th>
                <th scope="col" className="num">{t('reconciliation.statement')}</th>
                {showAsked && <th scope="col" className="num">{t('reconciliation.asked')}</th>}
                {showAsked && <th scope="col" className="num">{t('reconciliation.difference')}</th>}
                <th scope="col">{t('reconciliation.reference')}</th>
                {!compact && <th scope="col">{t('reconciliation.payment')}</th>}
                {showKind && <th scope="col">{t('reconciliation.status')}</th>}
                <th scope="col">{t('reconciliation.narration')}</th>
              </tr>
            </thead>
            <tbody>
              {lines.map((l) => (
                <tr key={l.lineNo}>
                  <td>{l.lineNo}</td>
                  <td>{day(l.date)}</td>
                  <td className="num">{money(l.amount, currency)}</td>
                  {showAsked && <td className="num">{l.paymentAmount === null ? '—' : money(l.paymentAmount, currency)}</td>}
                  {showAsked && (
                    <td className="num">{l.paymentAmount === null ? '—' : money(l.amount - l.paymentAmount, currency)}</td>
                  )}
                  <td className="cell-wrap">
                    {l.reference}
                    {l.utr && l.utr !== l.reference && <span className="muted"> · {l.utr}</span>}
                  </td>
                  {!compact && (
                    <td>
                      {l.orderNo ? <Link to={consolePaths.order(l.orderNo)}>{l.orderNo}</Link> : '—'}
                      {l.paymentReference && <span className="muted"> · {l.paymentReference}</span>}
                    </td>
                  )}
                  {showKind && (
                    <td>
                      {t(`reconciliation.kinds.${l.kind}`)}
                      {l.confirmedBy && l.confirmedAt !== null && (
                        <span className="muted">
                          {' '}
                          · {l.confirmedBy}, {dateTime(l.confirmedAt)}
                        </span>
                      )}
                    </td>
                  )}
                  <td className="cell-wrap">{l.narration}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function History({ current }: { current: string | null }) {
  const { t } = useTranslation();
  const imports = useImports();
  return (
    <section className="panel" aria-labelledby="import-history-title">
      <h2 id="import-history-title">{t('reconciliation.historyTitle')}</h2>
      {imports.isPending ? (
        <Loading label={t('reconciliation.loading')} />
      ) : imports.isError ? (
        <LoadFailed error={imports.error} onRetry={() => void imports.refetch()} />
      ) : imports.data.length === 0 ? (
        <p className="empty">{t('reconciliation.historyEmpty')}</p>
      ) : (
        <table className="table">
          <caption>{t('reconciliation.historyCaption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('reconciliation.file_')}</th>
              <th scope="col">{t('reconciliation.layoutCol')}</th>
              <th scope="col">{t('repayments.market')}</th>
              <th scope="col">{t('reconciliation.by')}</th>
              <th scope="col">{t('reconciliation.when')}</th>
              <th scope="col">{t('reconciliation.counts')}</th>
            </tr>
          </thead>
          <tbody>
            {imports.data.map((i) => (
              <tr key={i.importId}>
                <td>
                  <Link to={`${consolePaths.reconciliation}?import=${encodeURIComponent(i.importId)}`} aria-current={i.importId === current ? 'page' : undefined}>
                    {i.fileName}
                  </Link>
                </td>
                <td>{i.mappingName}</td>
                <td>{marketName(i.market, t)}</td>
                <td>{i.importedBy}</td>
                <td>{dateTime(i.importedAt)}</td>
                <td>
                  {i.lineCount} / {i.creditCount} / {i.confirmedCount}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
