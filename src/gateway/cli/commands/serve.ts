import { startGateway } from '../../server'
import { list, parse, storeOverrides, type Command } from '../shared'

export const serve: Command = async (args, io) => {
  const { values } = parse(args, {
    host: { type: 'string' },
    port: { type: 'string' },
    'allowed-hosts': { type: 'string' },
    'cors-origins': { type: 'string' },
    'headers-timeout': { type: 'string' },
    'request-timeout': { type: 'string' },
    'log-level': { type: 'string' },
    'log-file': { type: 'string' },
    'log-max-size': { type: 'string' },
    'log-keep': { type: 'string' },
    'upstream-connections': { type: 'string' },
    'instance-name': { type: 'string' },
    'max-queued-records': { type: 'string' },
    'max-queued-records-mb': { type: 'string' },
    'response-cache-mb': { type: 'string' },
    metrics: { type: 'boolean' },
    'metrics-port': { type: 'string' },
    'metrics-token': { type: 'string' },
    'trace-propagate': { type: 'boolean' },
  })
  const running = await startGateway(
    {
      host: values.host,
      port: values.port,
      ...storeOverrides(values),
      allowedHosts: list(values['allowed-hosts']),
      corsOrigins: list(values['cors-origins']),
      headersTimeout: values['headers-timeout'],
      requestTimeout: values['request-timeout'],
      logLevel: values['log-level'],
      logFile: values['log-file'],
      logMaxSize: values['log-max-size'],
      logKeep: values['log-keep'],
      upstreamConnections: values['upstream-connections'],
      instanceName: values['instance-name'],
      maxQueuedRecords: values['max-queued-records'],
      maxQueuedRecordsMb: values['max-queued-records-mb'],
      responseCacheMb: values['response-cache-mb'],
      metrics: values.metrics,
      metricsPort: values['metrics-port'],
      metricsToken: values['metrics-token'],
      tracePropagate: values['trace-propagate'],
    },
    { env: io.env, secrets: io.secrets },
  )
  io.out(
    `GW Gateway listening on ${running.url} (OpenAI base URL ${running.url}/v1, data in ${running.config.dataDir}${running.config.logFile ? `, log in ${running.config.logFile}` : ''})`,
  )
  if (running.metrics) io.out(`Prometheus metrics at ${running.metrics.url}${running.metrics.token_required ? ' (bearer token required)' : ''}`)
  await io.untilStopped()
  await running.close()
  return 0
}
