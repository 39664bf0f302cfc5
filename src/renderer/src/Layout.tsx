import { useEffect, useRef } from 'react'
import { useRoute } from './lib/router'
import { useSession } from './lib/session'
import { AdminsOnly, Empty } from './components/States'
import { PageHeader } from './components/Page'
import { OverviewScreen } from './screens/overview/OverviewScreen'
import { PlaygroundScreen } from './screens/playground/PlaygroundScreen'
import { RequestsScreen } from './screens/requests/RequestsScreen'
import { RequestDetail } from './screens/requests/RequestDetail'
import { SessionsScreen } from './screens/sessions/SessionsScreen'
import { SessionDetail } from './screens/sessions/SessionDetail'
import { KeysScreen } from './screens/keys/KeysScreen'
import { KeyDetail } from './screens/keys/KeyDetail'
import { PresetsScreen } from './screens/presets/PresetsScreen'
import { PresetEditor } from './screens/presets/PresetEditor'
import { ModelsScreen } from './screens/models/ModelsScreen'
import { ProvidersScreen } from './screens/providers/ProvidersScreen'
import { UsersScreen } from './screens/users/UsersScreen'
import { SettingsScreen } from './screens/settings/SettingsScreen'
import { SessionAlertBanner } from './components/SessionAlertBanner'

interface NavItem {
  id: string
  label: string
  admin?: boolean
}

const NAV: NavItem[] = [
  { id: 'overview', label: 'Overview' },
  { id: 'playground', label: 'Playground' },
  { id: 'requests', label: 'Requests' },
  { id: 'sessions', label: 'Sessions' },
  { id: 'keys', label: 'Keys' },
  { id: 'presets', label: 'Presets' },
  { id: 'models', label: 'Models' },
  { id: 'providers', label: 'Providers', admin: true },
  { id: 'users', label: 'Users', admin: true },
  { id: 'settings', label: 'Settings', admin: true },
]

function Sidebar({ current }: { current: string }) {
  const { user, isAdmin, signOut } = useSession()
  return (
    <nav className="sidebar" aria-label="Main" data-testid="sidebar">
      <a className="brand" href="#/overview">
        <span className="brand-mark" aria-hidden="true">
          GW
        </span>
        <span>Gateway</span>
      </a>
      <ul className="nav">
        {NAV.filter((n) => !n.admin || isAdmin).map((n) => (
          <li key={n.id}>
            <a
              href={`#/${n.id}`}
              className={current === n.id ? 'nav-link nav-on' : 'nav-link'}
              aria-current={current === n.id ? 'page' : undefined}
              data-testid={`nav-${n.id}`}
            >
              {n.label}
            </a>
          </li>
        ))}
      </ul>
      <div className="sidebar-foot">
        <div className="whoami" data-testid="whoami">
          <span className="whoami-name">{user.username}</span>
          <span className="whoami-role">{user.role}</span>
        </div>
        <button type="button" className="btn btn-small" onClick={signOut} data-testid="sign-out">
          Sign out
        </button>
      </div>
    </nav>
  )
}

function Screen({ segments }: { segments: string[] }) {
  const { isAdmin } = useSession()
  const [top = 'overview', id] = segments
  const adminOnly = (what: string) => (
    <>
      <PageHeader title={what} />
      <AdminsOnly what={what} />
    </>
  )
  switch (top) {
    case 'overview':
      return <OverviewScreen />
    case 'playground':
      return <PlaygroundScreen />
    case 'requests':
      return id ? <RequestDetail id={id} /> : <RequestsScreen />
    case 'sessions':
      return id ? <SessionDetail id={id} /> : <SessionsScreen />
    case 'keys':
      return id ? <KeyDetail id={id} /> : <KeysScreen />
    case 'presets':
      return id ? <PresetEditor name={id === 'new' ? null : id} /> : <PresetsScreen />
    case 'models':
      return <ModelsScreen />
    case 'providers':
      return isAdmin ? <ProvidersScreen /> : adminOnly('Providers')
    case 'users':
      return isAdmin ? <UsersScreen /> : adminOnly('Users')
    case 'settings':
      return isAdmin ? <SettingsScreen /> : adminOnly('Settings')
    default:
      return (
        <>
          <PageHeader title="Page not found" />
          <Empty title="There is no page at this address." testId="not-found">
            <a href="#/overview">Go to the overview</a>
          </Empty>
        </>
      )
  }
}

export function Layout() {
  const route = useRoute()
  const main = useRef<HTMLElement>(null)
  const first = useRef(true)
  const top = route.segments[0] ?? 'overview'
  useEffect(() => {
    // Move focus to the new page so keyboard and screen-reader users start at its top.
    if (first.current) first.current = false
    else main.current?.focus({ preventScroll: false })
    window.scrollTo(0, 0)
  }, [route.path])
  return (
    <div className="layout">
      <a className="skip-link" href="#main" onClick={(e) => (e.preventDefault(), main.current?.focus())}>
        Skip to content
      </a>
      <Sidebar current={top} />
      <main className="content" id="main" ref={main} tabIndex={-1} data-testid={`screen-${top}`}>
        <SessionAlertBanner />
        <Screen key={route.path} segments={route.segments} />
      </main>
    </div>
  )
}
