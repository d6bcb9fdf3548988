/// <reference types="@agent-surface/vite/client" />
