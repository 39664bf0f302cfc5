import { createRoot } from 'react-dom/client'
import { StatusPage } from './StatusPage'

createRoot(document.getElementById('root')!).render(<StatusPage />)
